// The header's search box as a live ARIA combobox (the WAI-ARIA combobox pattern with a listbox
// popup). The server renders a plain GET form to /search, which is all there is without
// JavaScript. Here, a pause in typing (DELAY ms: one request per pause, well under the per-client
// search limit) fetches the top hits as listbox options from /search/top. Arrow keys move through
// them (aria-activedescendant), Enter opens the active one (or, with none, submits the form to
// the results page), Escape closes the list.
(function () {
  "use strict";
  var DELAY = 250;
  var MIN_CHARS = 2;

  function setup(input) {
    var list = document.getElementById(input.getAttribute("aria-controls"));
    var endpoint = input.getAttribute("data-live-search");
    if (!list || !endpoint || input.getAttribute("role") === "combobox") return;
    var timer = null;
    var sent = 0;
    var active = -1;

    input.setAttribute("role", "combobox");
    input.setAttribute("aria-autocomplete", "list");
    input.setAttribute("aria-expanded", "false");

    function options() { return Array.prototype.slice.call(list.querySelectorAll("[role=option]")); }

    function mark(index) {
      var all = options();
      all.forEach(function (option, i) {
        option.setAttribute("aria-selected", i === index ? "true" : "false");
        option.classList.toggle("is-active", i === index);
      });
      active = index;
      if (index >= 0 && all[index]) {
        input.setAttribute("aria-activedescendant", all[index].id);
        all[index].scrollIntoView({ block: "nearest" });
      } else {
        input.removeAttribute("aria-activedescendant");
      }
    }

    function open() {
      if (!options().length) return close();
      list.hidden = false;
      input.setAttribute("aria-expanded", "true");
    }

    function close() {
      list.hidden = true;
      input.setAttribute("aria-expanded", "false");
      mark(-1);
    }

    function fetchTop() {
      var q = input.value.trim();
      if (q.length < MIN_CHARS) { list.innerHTML = ""; close(); return; }
      var ticket = ++sent;
      fetch(endpoint + "?q=" + encodeURIComponent(input.value), { credentials: "same-origin" })
        .then(function (response) { return response.ok ? response.text() : ""; })
        .then(function (html) {
          if (ticket !== sent) return; // a newer request is on its way
          list.innerHTML = html;
          mark(-1);
          if (document.activeElement === input) open(); else close();
        })
        .catch(function () { if (ticket === sent) close(); });
    }

    input.addEventListener("input", function () {
      clearTimeout(timer);
      timer = setTimeout(fetchTop, DELAY);
    });

    input.addEventListener("keydown", function (event) {
      var all = options();
      if (event.key === "ArrowDown" || event.key === "ArrowUp") {
        if (!all.length) return;
        event.preventDefault();
        if (list.hidden) { open(); }
        var step = event.key === "ArrowDown" ? 1 : -1;
        var next = active + step;
        if (next >= all.length) next = 0;
        if (next < 0) next = all.length - 1;
        mark(next);
      } else if (event.key === "Enter") {
        if (!list.hidden && active >= 0 && all[active]) {
          event.preventDefault();
          var link = all[active].querySelector("a");
          if (link) window.location.assign(link.href);
        }
        // otherwise the form submits: the results page
      } else if (event.key === "Escape") {
        if (!list.hidden) { event.preventDefault(); close(); }
      }
    });

    // A click on an option is a plain link; keep focus until it is followed.
    list.addEventListener("mousedown", function (event) { event.preventDefault(); });
    input.addEventListener("blur", function () { close(); });
    input.addEventListener("focus", function () { if (input.value.trim().length >= MIN_CHARS) open(); });
  }

  function init() {
    document.querySelectorAll("input[data-live-search]").forEach(setup);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
