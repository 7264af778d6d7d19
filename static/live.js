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
  function poll() {
    if (document.hidden) return setTimeout(poll, delay);
    fetch(url, { headers: { "If-None-Match": etag }, cache: "no-store" })
      .then(function (r) {
        if (r.status === 200 && r.headers.get("ETag") && r.headers.get("ETag") !== etag) {
          location.reload();
          return;
        }
        setTimeout(poll, delay);
      })
      .catch(function () { setTimeout(poll, delay * 3); });
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
