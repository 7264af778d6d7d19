// Follows a game live: asks the API every few seconds whether the game changed (ETag / If-None-Match, so an
// unchanged game costs an empty 304) and reloads the page when it did. Polling, not server-sent events, because
// under gunicorn's sync workers an open event stream would hold a whole worker per phone.
(function () {
  "use strict";
  var live = document.getElementById("live");
  if (!live || !window.fetch) return;
  var url = live.getAttribute("data-url");
  var etag = '"' + live.getAttribute("data-version") + '"';
  var delay = 3000;
  // A follower must see when the page is no longer live, or an old score passes for the current one.
  var stale = document.getElementById("stale");
  var lastOk = Date.now();
  var ticker = null;
  function showStale() {
    if (!stale) return;
    var seconds = Math.round((Date.now() - lastOk) / 1000);
    stale.textContent = "Not updated for " + seconds + " s: the server cannot be reached. " +
      "This page updates by itself when the connection is back.";
    stale.hidden = false;
  }
  function ok() {
    lastOk = Date.now();
    if (ticker) { clearInterval(ticker); ticker = null; }
    if (stale) stale.hidden = true;
  }
  function failed() {
    showStale();
    if (!ticker) ticker = setInterval(showStale, 1000);
  }
  function poll() {
    if (document.hidden) return setTimeout(poll, delay);
    fetch(url, { headers: { "If-None-Match": etag }, cache: "no-store" })
      .then(function (r) {
        if (r.status >= 500) throw new Error("server error");
        ok();
        if (r.status === 200 && r.headers.get("ETag") && r.headers.get("ETag") !== etag) {
          location.reload();
          return;
        }
        setTimeout(poll, delay);
      })
      .catch(function () { failed(); setTimeout(poll, delay); });
  }
  setTimeout(poll, delay);
  document.querySelectorAll("form[data-confirm]").forEach(function (f) {
    f.addEventListener("submit", function (e) {
      if (!confirm(f.getAttribute("data-confirm"))) e.preventDefault();
    });
  });
  document.querySelectorAll("input.copy").forEach(function (i) {
    i.addEventListener("focus", function () { i.select(); });
  });
})();
