// Local times, confirmations, copy and share on every page that loads it; on a game's pages it also follows the
// game live: asks the API every few seconds whether the game changed (ETag / If-None-Match, so an
// unchanged game costs an empty 304) and reloads the page when it did. Polling, not server-sent events, because
// under gunicorn's sync workers an open event stream would hold a whole worker per phone.
(function () {
  "use strict";
  // The page's language (<html lang>), for the dates below; the words themselves come from the page.
  var lang = document.documentElement.lang || undefined;
  // Times are written in UTC; show them as the phone's clock reads, in the page's language.
  document.querySelectorAll("time[datetime]").forEach(function (t) {
    var when = new Date(t.getAttribute("datetime"));
    if (isNaN(when)) return;
    var options = { day: "numeric", month: "short", hour: "2-digit", minute: "2-digit",
      second: t.hasAttribute("data-seconds") ? "2-digit" : undefined };
    try {
      t.textContent = when.toLocaleString(lang, options);
    } catch (e) {
      t.textContent = when.toLocaleString(undefined, options);  // a language tag this browser does not know
    }
  });
  document.querySelectorAll("form[data-confirm]").forEach(function (f) {
    f.addEventListener("submit", function (e) {
      if (!confirm(f.getAttribute("data-confirm"))) e.preventDefault();
    });
  });
  document.querySelectorAll("input.copy").forEach(function (i) {
    i.addEventListener("focus", function () { i.select(); });
  });
  // Copy and the phone's share sheet. Over plain http browsers offer neither navigator.clipboard nor
  // navigator.share, so copying falls back to selecting the text and the older copy command.
  document.querySelectorAll("[data-copy]").forEach(function (button) {
    var input = document.getElementById(button.getAttribute("data-copy"));
    var label = button.textContent;
    button.addEventListener("click", function () {
      function copied() {
        button.textContent = button.getAttribute("data-copied") || label;
        setTimeout(function () { button.textContent = label; }, 2000);
      }
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(input.value).then(copied, function () {});
        return;
      }
      input.focus();
      input.select();
      try { if (document.execCommand("copy")) copied(); } catch (e) { /* the text stays selected to copy by hand */ }
    });
  });
  document.querySelectorAll("[data-share]").forEach(function (button) {
    if (!navigator.share) return;
    var input = document.getElementById(button.getAttribute("data-share"));
    button.hidden = false;
    button.addEventListener("click", function () {
      navigator.share({ title: document.title, url: input.value }).catch(function () {});
    });
  });

  // Print (the result card): a button only where the browser can print.
  document.querySelectorAll("[data-print]").forEach(function (button) {
    if (typeof window.print !== "function") return;
    button.hidden = false;
    button.addEventListener("click", function () { window.print(); });
  });

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
    stale.textContent = (stale.getAttribute("data-text") || "{s} s").replace("{s}", String(seconds));
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
})();
