// Prefill's own front-end glue. No inline scripts anywhere (the CSP forbids them), so every
// behaviour a page needs is attached here by data attributes. Everything still works without it.
(function () {
  "use strict";
  document.documentElement.classList.add("js");

  // "/" focuses the search box (unless the user is typing somewhere).
  document.addEventListener("keydown", function (event) {
    if (event.key !== "/" || event.ctrlKey || event.metaKey || event.altKey) return;
    var target = event.target;
    if (target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName))) return;
    var box = document.querySelector("[data-hotkey='/']");
    if (box) { event.preventDefault(); box.focus(); box.select(); }
  });

  // "N" follows the next-drill link (unless the user is typing somewhere).
  document.addEventListener("keydown", function (event) {
    if ((event.key !== "n" && event.key !== "N") || event.ctrlKey || event.metaKey || event.altKey) return;
    var target = event.target;
    if (target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName))) return;
    var link = document.querySelector("a[data-hotkey='n']");
    if (link) { event.preventDefault(); link.click(); }
  });
  // A drill's verdict swapped in: focus it, so the keyboard goes on to N without a click.
  document.addEventListener("htmx:afterSwap", function (event) {
    var region = event.detail.target;
    if (!region || region.id !== "drill-verdict") return;
    var result = region.querySelector(".drill-result");
    if (result) { result.focus(); }
  });

  var toastTimer = null;
  function toast(message, isError) {
    var box = document.getElementById("toast");
    if (!box) return;
    box.textContent = message;
    box.classList.toggle("error", !!isError);
    box.hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(function () { box.hidden = true; }, 6000);
  }
  window.prefillToast = toast;

  // HTMX errors that are not swapped (403, 404, 429, 5xx) become a readable toast.
  document.addEventListener("htmx:responseError", function (event) {
    var xhr = event.detail.xhr;
    var text = "";
    try {
      var data = JSON.parse(xhr.responseText);
      text = typeof data.detail === "string" ? data.detail : "";
    } catch (e) {
      var doc = new DOMParser().parseFromString(xhr.responseText, "text/html");
      var lede = doc.querySelector(".error-page .lede") || doc.querySelector("[data-message]");
      text = lede ? lede.textContent.trim() : "";
    }
    toast(text || ("The request failed (" + xhr.status + ")."), true);
  });
  // Attempts survive a sign-in detour or an expired session: the text is mirrored in this
  // browser's localStorage until the server confirms a save, and restored into an empty box.
  function attemptKey(slug) { return "prefill:attempt:" + slug; }
  function storeLocal(slug, text) {
    try { if (text) { localStorage.setItem(attemptKey(slug), text); } else { localStorage.removeItem(attemptKey(slug)); } } catch (e) { /* storage full or disabled */ }
  }
  function readLocal(slug) {
    try { return localStorage.getItem(attemptKey(slug)) || ""; } catch (e) { return ""; }
  }
  function initAttempts(root) {
    root.querySelectorAll("textarea[data-local-attempt]").forEach(function (box) {
      var slug = box.getAttribute("data-local-attempt");
      if (!box.value) { box.value = readLocal(slug); }
      box.addEventListener("input", function () { storeLocal(slug, box.value); });
    });
    root.querySelectorAll("textarea[data-autosave-key]").forEach(function (box) {
      var slug = box.getAttribute("data-autosave-key");
      box.addEventListener("input", function () { storeLocal(slug, box.value); });
      var kept = readLocal(slug);
      if (!box.value.trim() && kept) {
        box.value = kept;
        box.dispatchEvent(new Event("input", { bubbles: true }));  // saves it to the account
      }
    });
  }
  document.addEventListener("DOMContentLoaded", function () { initAttempts(document); });
  document.addEventListener("htmx:afterRequest", function (event) {
    var box = event.detail.elt;
    if (box && box.matches && box.matches("textarea[data-autosave-key]") && event.detail.successful) {
      storeLocal(box.getAttribute("data-autosave-key"), "");  // the server has it now
    }
  });
  document.addEventListener("submit", function (event) {
    var box = event.target.querySelector && event.target.querySelector("textarea[data-autosave-key]");
    if (box) { storeLocal(box.getAttribute("data-autosave-key"), box.value); }
  });

  document.addEventListener("htmx:sendError", function () {
    toast("Could not reach Prefill. Check your connection and try again.", true);
  });
})();
