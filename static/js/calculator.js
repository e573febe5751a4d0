// The calculator's small conveniences. No sizing arithmetic here: every number comes from the
// server. Without this file the forms still submit and the command is still selectable text.
(function () {
  "use strict";

  function notify(message, isError) {
    if (window.prefillToast) window.prefillToast(message, isError);
  }

  function copyText(text, what) {
    if (!navigator.clipboard) {
      notify("Copying is not available here: select the text instead.", true);
      return;
    }
    navigator.clipboard.writeText(text).then(
      function () { notify(what + " copied."); },
      function () { notify("Could not copy: select the text instead.", true); }
    );
  }

  // Updates sent while someone types say so: the server then answers unfinished input with a
  // hint (200) and leaves the last good result on screen, instead of an error.
  document.addEventListener("htmx:configRequest", function (event) {
    var form = event.detail.elt;
    var trigger = event.detail.triggeringEvent;
    if (!form.matches || !form.matches(".calc-form, .compare-form, .embed-form")) return;
    if (trigger && trigger.type !== "submit") event.detail.headers["X-Calc-Live"] = "1";
    // A keystroke names its field, so the model box is not marked invalid while typed in; its
    // change event on blur (or a submit) sends no name, and then it is.
    if (trigger && trigger.type === "input" && trigger.target && trigger.target.name) {
      event.detail.headers["X-Calc-Typing"] = trigger.target.name;
    }
  });

  // A pasted config.json is never part of a URL; keep it in this tab so a reload keeps it.
  var CONFIG_KEY = "prefill:calculator-config";
  document.addEventListener("input", function (event) {
    if (event.target.id !== "calc-config") return;
    try { sessionStorage.setItem(CONFIG_KEY, event.target.value); } catch (e) { /* storage off */ }
  });
  document.addEventListener("DOMContentLoaded", function () {
    var area = document.getElementById("calc-config");
    if (!area || area.value.trim()) return;
    var saved = null;
    try { saved = sessionStorage.getItem(CONFIG_KEY); } catch (e) { return; }
    if (!saved) return;
    area.value = saved;
    area.dispatchEvent(new Event("change", { bubbles: true }));
  });

  // The "Preset" / "Your config.json" tabs are links built when the page was rendered; keep them
  // carrying the hardware and workload typed since, so switching keeps them (without JavaScript
  // every change reloads the page, which rebuilds the links).
  var CARRIED = ["gpu", "gpus", "tp", "context", "concurrency", "kv_dtype", "weight_dtype",
    "gpu_util", "reserve", "kv_budget", "prompt_tokens", "output_tokens", "tpot_slo_ms",
    "gpu_hour_usd"];
  function syncSourceTabs() {
    var form = document.getElementById("calc-form");
    if (!form) return;
    var tabs = document.querySelectorAll(".calc-form nav.segmented a[href^='/calculator']");
    tabs.forEach(function (tab) {
      var url = new URL(tab.getAttribute("href"), location.href);
      CARRIED.forEach(function (name) {
        var field = form.elements.namedItem(name);
        if (field && typeof field.value === "string") url.searchParams.set(name, field.value.trim());
      });
      tab.setAttribute("href", url.pathname + "?" + url.searchParams.toString());
    });
  }
  document.addEventListener("input", syncSourceTabs);
  document.addEventListener("change", syncSourceTabs);

  // "Copy link" for a pasted config: store it (and the index) through the JSON API, then copy
  // the short link; the address bar shows it too, so a reload opens the stored config.
  function shareConfig(button) {
    var area = document.getElementById("calc-config");
    var indexArea = document.getElementById("calc-index");
    var nameField = document.getElementById("calc-name");
    var body = {};
    try {
      body.config = JSON.parse(area ? area.value : "");
      if (indexArea && indexArea.value.trim()) body.index = JSON.parse(indexArea.value);
    } catch (e) {
      notify("The config or index is not valid JSON yet.", true);
      return;
    }
    if (nameField && nameField.value.trim()) body.name = nameField.value.trim();
    button.disabled = true;
    fetch("/api/v1/configs", {
      method: "POST",
      headers: { "Content-Type": "application/json", "Accept": "application/json" },
      body: JSON.stringify(body),
      credentials: "same-origin"
    }).then(function (response) {
      return response.json().then(function (data) { return { ok: response.ok, data: data }; });
    }).then(function (reply) {
      button.disabled = false;
      if (!reply.ok) {
        var detail = reply.data && reply.data.detail;
        notify(Array.isArray(detail) ? detail[0].msg : (detail || "Could not store the config."), true);
        return;
      }
      var query = button.getAttribute("data-share-query") || "";
      var path = button.getAttribute("data-share-next") === "compare" ? "/calculator/compare" : "/calculator";
      var link = path + "?cfg=" + encodeURIComponent(reply.data.id) + (query ? "&" + query : "");
      if (path === "/calculator/compare") {
        location.assign(link);
        return;
      }
      try { history.replaceState(null, "", link); } catch (e) { /* keep the page as it is */ }
      copyText(new URL(link, location.href).href, "Link");
    }, function () {
      button.disabled = false;
      notify("Could not store the config: the connection failed.", true);
    });
  }

  document.addEventListener("click", function (event) {
    var share = event.target.closest("[data-share-config]");
    if (share) {
      shareConfig(share);
      return;
    }
    var button = event.target.closest("[data-copy], [data-copy-url]");
    if (!button) return;
    if (button.hasAttribute("data-copy")) {
      var source = document.querySelector(button.getAttribute("data-copy"));
      if (source) copyText(source.textContent, "Command");
    } else {
      copyText(new URL(button.getAttribute("data-copy-url"), location.href).href, "Link");
    }
  });

  // A chosen config.json file is read into the textarea, which is what the form sends; the file
  // input is then cleared so the file is not uploaded again with every update.
  document.addEventListener("change", function (event) {
    var input = event.target;
    if (!input.matches || !input.matches("input[type=file][data-config-file]")) return;
    var file = input.files && input.files[0];
    var area = document.querySelector(input.getAttribute("data-config-file"));
    if (!file || !area) return;
    event.stopPropagation(); // the textarea's own event triggers the update
    file.text().then(function (text) {
      area.value = text;
      input.value = "";
      area.dispatchEvent(new Event("input", { bubbles: true }));
      area.dispatchEvent(new Event("change", { bubbles: true }));
    }, function () {
      notify("Could not read that file.", true);
    });
  }, true);
})();
