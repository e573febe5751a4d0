// After a reveal, on a phone: tabs "Your attempt · Answer · Score" over the attempt, the worked
// answer and the rubric. The panels are only hidden, never re-rendered, so ticked items and a
// chosen band stay as they were; the chosen tab is kept for this tab's session (js/early.js puts
// it back before the first paint). Wide screens show all three side by side, and without
// JavaScript they are one column in the order attempt, rubric, answer.
(function () {
  "use strict";
  var root = document.documentElement;
  var KEY = "prefill:review-tab:" + location.pathname.replace(/\/try$/, "");
  var TABS = ["attempt", "answer", "score"];

  function init() {
    var bar = document.querySelector("[data-review-tabs]");
    if (!bar) return;
    var region = bar.closest(".review");
    var buttons = Array.prototype.slice.call(bar.querySelectorAll("[data-tab]"));
    var narrow = window.matchMedia("(max-width: 899.98px)");

    function current() {
      var tab = root.getAttribute("data-review-tab");
      return TABS.indexOf(tab) >= 0 ? tab : "attempt";
    }
    function panel(tab) { return region.querySelector("[data-panel='" + tab + "']"); }
    function paint() {
      var tab = current();
      buttons.forEach(function (button) {
        var name = button.getAttribute("data-tab");
        var target = panel(name);
        if (narrow.matches) {
          button.setAttribute("role", "tab");
          button.setAttribute("aria-selected", String(name === tab));
          button.setAttribute("tabindex", name === tab ? "0" : "-1");
          if (target) { target.setAttribute("role", "tabpanel"); target.setAttribute("aria-labelledby", button.id); }
        } else {
          button.removeAttribute("role"); button.removeAttribute("aria-selected"); button.removeAttribute("tabindex");
          if (target) { target.removeAttribute("role"); target.removeAttribute("aria-labelledby"); }
        }
      });
      if (narrow.matches) { bar.setAttribute("role", "tablist"); } else { bar.removeAttribute("role"); }
    }
    function select(tab, focus) {
      if (tab === "attempt") { root.removeAttribute("data-review-tab"); } else { root.setAttribute("data-review-tab", tab); }
      try { window.sessionStorage.setItem(KEY, tab); } catch (e) { /* storage disabled */ }
      paint();
      var top = region.getBoundingClientRect().top;
      if (top < 0) { window.scrollBy(0, top); }  // the new panel from its start
      if (focus) { bar.querySelector("[data-tab='" + tab + "']").focus(); }
    }
    buttons.forEach(function (button) {
      button.addEventListener("click", function () { select(button.getAttribute("data-tab"), false); });
      button.addEventListener("keydown", function (event) {
        var at = TABS.indexOf(current());
        var next = { ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: TABS.length - 1 }[event.key];
        if (next === undefined) return;
        event.preventDefault();
        select(TABS[(next + TABS.length) % TABS.length], true);
      });
    });
    if (narrow.addEventListener) { narrow.addEventListener("change", paint); }
    paint();
  }
  document.addEventListener("DOMContentLoaded", init);
})();
