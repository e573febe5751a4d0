// A mock interview's live clock. The server keeps the deadline and says what "now" is (the page
// carries both), so the count-down follows the server's clock, not this machine's. When a
// follow-up is due the page says so; at the deadline the answer form is sent as "end", so what
// was written is saved (the server marks anything later as late). Without JavaScript the page
// shows the end time and the server enforces it.
(function () {
  "use strict";
  var DRAFTS = "prefill:draft:visitor:mock:";

  function init() {
    var clock = document.querySelector("[data-mock-clock]");
    if (!clock) return;
    var deadline = Date.parse(clock.getAttribute("data-deadline"));
    var offset = Date.parse(clock.getAttribute("data-now")) - Date.now();
    var texts = clock.querySelectorAll("[data-clock-text]");
    var form = document.querySelector("[data-mock-form]");
    var followupAt = form ? Date.parse(form.getAttribute("data-followup-at") || "") : NaN;
    var notice = document.querySelector("[data-followup-notice]");
    var sent = false;

    function now() { return Date.now() + offset; }
    function tick() {
      var left = Math.max(0, Math.round((deadline - now()) / 1000));
      var shown = Math.floor(left / 60) + ":" + String(left % 60).padStart(2, "0");
      texts.forEach(function (text) { text.textContent = shown; });
      clock.classList.toggle("is-low", left <= 300);
      if (notice && !isNaN(followupAt) && now() >= followupAt) { notice.hidden = false; }
      if (left === 0 && !sent) {
        sent = true;
        if (form) {
          var end = document.createElement("input");
          end.type = "hidden"; end.name = "action"; end.value = "end";
          form.appendChild(end);
          fillTexts(form);
          form.submit();
        } else {
          window.location.reload();
        }
      }
    }
    tick();
    window.setInterval(tick, 1000);
  }

  // A visitor's other answers ride in hidden fields; after a reload they are empty, so they
  // are filled from this browser's copy before the form goes.
  function fillTexts(form) {
    form.querySelectorAll("input[data-mock-text]").forEach(function (field) {
      if (field.value) return;
      try { field.value = localStorage.getItem(DRAFTS + field.getAttribute("data-mock-text")) || ""; } catch (e) { /* disabled */ }
    });
  }
  document.addEventListener("submit", function (event) {
    if (event.target.querySelector && event.target.querySelector("input[data-mock-text]")) { fillTexts(event.target); }
  });
  document.addEventListener("DOMContentLoaded", init);
})();
