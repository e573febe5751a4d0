// A timed drill session's count-down for the drill on screen. The server says how many seconds
// are left when the page is drawn and decides, on the answer, whether it came in time; this only
// shows the count (without JavaScript the page shows the seconds left as drawn).
(function () {
  "use strict";
  function init() {
    var clock = document.querySelector("[data-drill-clock]");
    if (!clock) return;
    var text = clock.querySelector("[data-left-text]");
    var end = Date.now() + Number(clock.getAttribute("data-left")) * 1000;
    function tick() {
      var left = Math.max(0, Math.ceil((end - Date.now()) / 1000));
      text.textContent = left + " s";
      clock.classList.toggle("is-low", left <= 15);
      if (left === 0) {
        clock.lastChild.textContent = " left for this drill: time is up";
        return;
      }
      window.setTimeout(tick, 250);
    }
    tick();
  }
  document.addEventListener("DOMContentLoaded", init);
})();
