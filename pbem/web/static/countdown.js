// The countdown to a game's deadline, in the reader's own time zone.
// The page prints the deadline as text (UTC and the game's zone); this
// adds the time left and the moment in the reader's zone, once a second.
(function () {
  "use strict";
  function two(n) { return (n < 10 ? "0" : "") + n; }
  function left(ms) {
    var s = Math.floor(ms / 1000);
    var d = Math.floor(s / 86400), h = Math.floor((s % 86400) / 3600);
    var m = Math.floor((s % 3600) / 60);
    var out = (d ? d + (d === 1 ? " day " : " days ") : "") + h + " h " + two(m) + " min " + two(s % 60) + " s";
    return out;
  }
  function start(time) {
    var at = new Date(time.getAttribute("datetime"));
    if (isNaN(at.getTime())) { return; }
    var out = time.closest("section").querySelector(".countdown");
    if (!out) { return; }
    var mine = at.toLocaleString(undefined, { weekday: "short", day: "numeric", month: "short",
      hour: "2-digit", minute: "2-digit", timeZoneName: "short" });
    function tick() {
      var ms = at.getTime() - Date.now();
      if (ms <= 0) {
        out.textContent = "The deadline has passed: the results come by mail and appear here.";
        return false;
      }
      out.textContent = "Time left: " + left(ms) + " (due " + mine + " your time).";
      return true;
    }
    out.hidden = false;
    if (tick()) {
      var timer = setInterval(function () { if (!tick()) { clearInterval(timer); } }, 1000);
    }
  }
  document.querySelectorAll("time[data-countdown]").forEach(start);
})();
