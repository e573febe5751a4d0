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
  // browser's localStorage until the server confirms a save. A browser may be shared, so drafts
  // are kept per member (an opaque id on <body>; visitors share "visitor"), are removed at
  // sign-out and account deletion, and are only ever put back into a box when its owner asks.
  var DRAFTS = "prefill:draft:";
  function owner() { return document.body.getAttribute("data-draft-owner") || "visitor"; }
  function draftKey(who, slug) { return DRAFTS + who + ":" + slug; }
  function storeLocal(slug, text) {
    try {
      if (text) { localStorage.setItem(draftKey(owner(), slug), text); }
      else { localStorage.removeItem(draftKey(owner(), slug)); }
    } catch (e) { /* storage full or disabled */ }
  }
  function readLocal(who, slug) {
    try { return localStorage.getItem(draftKey(who, slug)) || ""; } catch (e) { return ""; }
  }
  function forget(key) { try { localStorage.removeItem(key); } catch (e) { /* disabled */ } }
  function forgetDrafts(who) {
    try {
      for (var i = localStorage.length - 1; i >= 0; i--) {
        var key = localStorage.key(i);
        // Drafts from before they were kept per member have no owner: drop them too.
        if (key && (key.indexOf(DRAFTS + who + ":") === 0 || key.indexOf("prefill:attempt:") === 0)) {
          localStorage.removeItem(key);
        }
      }
    } catch (e) { /* disabled */ }
  }
  // "You have a draft here": restore it into the box, or discard it. Nothing is filled in, or
  // saved to the account, until the person at the keyboard says so.
  function offerDraft(box, slug, autosave) {
    var sources = [owner()];
    if (owner() !== "visitor") { sources.push("visitor"); }  // written before signing up
    if (box.value.trim() && owner() !== "visitor" && readLocal("visitor", slug).trim() === box.value.trim()) {
      forget(draftKey("visitor", slug));  // carried into the account at sign-up: saved there now
    }
    var from = sources.filter(function (who) { return readLocal(who, slug).trim(); })[0];
    if (!from || box.value.trim()) return;
    var offer = document.createElement("p");
    offer.className = "draft-offer";
    offer.setAttribute("role", "status");
    offer.appendChild(document.createTextNode("This browser kept an unsaved draft of your answer. "));
    var restore = document.createElement("button");
    restore.type = "button";
    restore.className = "button button-small";
    restore.textContent = "Restore draft";
    var discard = document.createElement("button");
    discard.type = "button";
    discard.className = "button button-quiet button-small";
    discard.textContent = "Discard";
    offer.appendChild(restore);
    offer.appendChild(document.createTextNode(" "));
    offer.appendChild(discard);
    box.parentNode.insertBefore(offer, box);
    restore.addEventListener("click", function () {
      box.value = readLocal(from, slug);
      if (from !== owner()) { forget(draftKey(from, slug)); storeLocal(slug, box.value); }
      offer.remove();
      box.focus();
      if (autosave) { box.dispatchEvent(new Event("input", { bubbles: true })); }  // they asked
    });
    discard.addEventListener("click", function () {
      forget(draftKey(from, slug));
      offer.remove();
    });
  }
  function initAttempts(root) {
    root.querySelectorAll("textarea[data-local-attempt]").forEach(function (box) {
      var slug = box.getAttribute("data-local-attempt");
      box.addEventListener("input", function () { storeLocal(slug, box.value); });
      offerDraft(box, slug, false);
    });
    root.querySelectorAll("textarea[data-autosave-key]").forEach(function (box) {
      var slug = box.getAttribute("data-autosave-key");
      box.addEventListener("input", function () { storeLocal(slug, box.value); });
      offerDraft(box, slug, true);
    });
  }
  // Signing up (or in) from a question: the attempt this browser kept for it goes along in the
  // form and is saved into the account by that same request (app/practice/carry.py), so the page
  // that follows has it without a click. The question's own "Reveal" form fills it without us.
  function carryDraft() {
    var field = document.querySelector("textarea[data-carry-draft]");
    if (!field) return;
    if (!field.value.trim()) { field.value = readLocal("visitor", field.getAttribute("data-carry-draft")); }
    var note = document.querySelector("[data-carry-note]");
    if (note && field.value.trim()) { note.hidden = false; }
  }
  document.addEventListener("DOMContentLoaded", function () { initAttempts(document); carryDraft(); });
  document.addEventListener("htmx:afterRequest", function (event) {
    var box = event.detail.elt;
    if (box && box.matches && box.matches("textarea[data-autosave-key]") && event.detail.successful) {
      storeLocal(box.getAttribute("data-autosave-key"), "");  // the server has it now
    }
  });
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (form.hasAttribute && form.hasAttribute("data-clear-drafts")) {
      forgetDrafts(owner());  // signing out or deleting the account: leave nothing behind
      return;
    }
    var box = form.querySelector && form.querySelector("textarea[data-autosave-key]");
    if (box) { storeLocal(box.getAttribute("data-autosave-key"), box.value); }
  });

  // The browser's time zone: sent with sign-up (a hidden field), and offered on the account page
  // when it differs from the saved one and is on the list (the server checks it either way).
  function browserZone() {
    try { return Intl.DateTimeFormat().resolvedOptions().timeZone || ""; } catch (e) { return ""; }
  }
  document.addEventListener("DOMContentLoaded", function () {
    var zone = browserZone();
    if (!zone) return;
    document.querySelectorAll("input[data-browser-zone]").forEach(function (field) {
      if (!field.value) field.value = zone;
    });
    var offer = document.querySelector("form[data-zone-offer]");
    var select = document.getElementById("f-timezone");
    if (!offer || !select || offer.getAttribute("data-current") === zone) return;
    var listed = Array.prototype.some.call(select.options, function (o) { return o.value === zone; });
    if (!listed) return;
    offer.querySelector("input[name=timezone]").value = zone;
    offer.querySelector("[data-zone-name]").textContent = zone;
    offer.hidden = false;
  });

  // /notifications posted "seen" for what it shows (its form, on load): the header's count goes.
  document.addEventListener("notices-seen", function () {
    document.querySelectorAll(".replies-link .notify-dot").forEach(function (dot) { dot.remove(); });
  });

  document.addEventListener("htmx:sendError", function () {
    toast("Could not reach Prefill. Check your connection and try again.", true);
  });
})();
