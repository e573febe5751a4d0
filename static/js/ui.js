// Small interface behaviours: menus that close like menus, and focus that stays put.
(function () {
  "use strict";

  // The account menu (a <details>) closes on Escape, returning focus to its button, and when
  // a click lands outside it.
  document.addEventListener("keydown", function (event) {
    if (event.key !== "Escape") return;
    var menu = document.querySelector("details.account-menu[open]");
    if (!menu) return;
    menu.open = false;
    var summary = menu.querySelector("summary");
    if (summary) summary.focus();
  });
  document.addEventListener("click", function (event) {
    var menu = document.querySelector("details.account-menu[open]");
    if (menu && !menu.contains(event.target)) menu.open = false;
  });
})();
