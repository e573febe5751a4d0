// Run before the first paint (the one script loaded without `defer`): mark that scripts run, and
// put back the tab a reader chose after a reveal (js/practice.js), so the page is laid out once.
(function () {
  "use strict";
  var root = document.documentElement;
  root.classList.add("js");
  try {
    var tab = window.sessionStorage.getItem("prefill:review-tab:" + location.pathname.replace(/\/try$/, ""));
    if (tab === "answer" || tab === "score") { root.setAttribute("data-review-tab", tab); }
  } catch (e) { /* storage disabled: the first tab */ }
})();
