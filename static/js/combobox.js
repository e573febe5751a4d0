// The calculator's model field as an ARIA combobox (the WAI-ARIA "list autocomplete" pattern).
// The server renders a text input with a datalist (enough without JavaScript) and a hidden
// listbox of every preset; this script filters that listbox as you type and moves through it
// with the keyboard. Picking an option sets the input's value and fires "change", which is what
// the form listens to.
(function () {
  "use strict";

  function setup(field) {
    var input = field.querySelector("input[type=text]");
    var list = field.querySelector("[role=listbox]");
    if (!input || !list || input.getAttribute("role") === "combobox") return;
    var options = Array.prototype.slice.call(list.querySelectorAll("[role=option]"));
    var active = null;

    input.removeAttribute("list"); // our listbox replaces the native datalist popup
    input.setAttribute("role", "combobox");
    input.setAttribute("aria-autocomplete", "list");
    input.setAttribute("aria-expanded", "false");
    input.setAttribute("aria-controls", list.id);

    function visible() {
      return options.filter(function (o) { return !o.hidden; });
    }

    function filter() {
      var words = input.value.toLowerCase().trim().split(/\s+/).filter(Boolean);
      options.forEach(function (option) {
        var text = option.getAttribute("data-search");
        var exact = option.getAttribute("data-value") === input.value.trim().toLowerCase();
        option.hidden = !exact && !words.every(function (w) { return text.indexOf(w) !== -1; });
      });
      if (!visible().length) options.forEach(function (o) { o.hidden = false; });
    }

    function highlight(option) {
      if (active) {
        active.classList.remove("is-active");
        active.setAttribute("aria-selected", "false");
      }
      active = option;
      if (option) {
        option.classList.add("is-active");
        option.setAttribute("aria-selected", "true");
        input.setAttribute("aria-activedescendant", option.id);
        option.scrollIntoView({ block: "nearest" });
      } else {
        input.removeAttribute("aria-activedescendant");
      }
    }

    function open() {
      filter();
      list.hidden = false;
      input.setAttribute("aria-expanded", "true");
    }

    function close() {
      list.hidden = true;
      input.setAttribute("aria-expanded", "false");
      highlight(null);
    }

    function choose(option) {
      input.value = option.getAttribute("data-value");
      close();
      input.dispatchEvent(new Event("change", { bubbles: true }));
    }

    function step(by) {
      var shown = visible();
      if (!shown.length) return;
      var index = shown.indexOf(active);
      index = index === -1 ? (by > 0 ? 0 : shown.length - 1) : (index + by + shown.length) % shown.length;
      highlight(shown[index]);
    }

    input.addEventListener("input", function () {
      open();
      highlight(null);
    });
    input.addEventListener("keydown", function (event) {
      var expanded = !list.hidden;
      if (event.key === "ArrowDown") {
        event.preventDefault();
        if (!expanded) open();
        if (!event.altKey) step(1);
      } else if (event.key === "ArrowUp") {
        event.preventDefault();
        if (!expanded) open();
        step(-1);
      } else if (event.key === "Enter" && expanded && active) {
        event.preventDefault(); // choose, don't submit
        choose(active);
      } else if (event.key === "Escape" && expanded) {
        event.preventDefault();
        close();
      } else if (event.key === "Tab") {
        close();
      }
    });
    input.addEventListener("blur", function () { window.setTimeout(close, 120); });
    list.addEventListener("mousedown", function (event) { event.preventDefault(); }); // keep focus
    list.addEventListener("click", function (event) {
      var option = event.target.closest("[role=option]");
      if (option) choose(option);
    });
  }

  function setupAll(root) {
    (root || document).querySelectorAll("[data-combobox]").forEach(setup);
  }

  document.addEventListener("DOMContentLoaded", function () { setupAll(document); });
  document.addEventListener("htmx:load", function (event) { setupAll(event.target); });
})();
