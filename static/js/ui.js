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

  // "On this page" follows the reader: the section whose heading was passed last is marked.
  function followOutline() {
    var links = Array.prototype.slice.call(document.querySelectorAll(".page-outline ol a[href^='#']"));
    var pairs = links.map(function (link) {
      return { link: link, heading: document.getElementById(link.getAttribute("href").slice(1)) };
    }).filter(function (pair) { return pair.heading; });
    if (!pairs.length) return;
    var ticking = false;
    function update() {
      ticking = false;
      // At the foot of a short page the last headings can never scroll up to the 30% line:
      // there, the top half of the window counts as passed.
      var atBottom = window.scrollY + window.innerHeight >= document.documentElement.scrollHeight - 2;
      var line = window.innerHeight * (atBottom ? 0.5 : 0.3);
      var current = pairs[0];
      pairs.forEach(function (pair) {
        if (pair.heading.getBoundingClientRect().top <= line) current = pair;
      });
      pairs.forEach(function (pair) {
        if (pair === current) pair.link.setAttribute("aria-current", "location");
        else pair.link.removeAttribute("aria-current");
      });
    }
    window.addEventListener("scroll", function () {
      if (!ticking) { ticking = true; window.requestAnimationFrame(update); }
    }, { passive: true });
    update();
  }
  document.addEventListener("DOMContentLoaded", followOutline);
})();
