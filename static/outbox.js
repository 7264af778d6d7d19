// Rounds saved while the table's Wi-Fi is down wait here, in this browser's localStorage, and are sent when the
// connection is back. Over plain http on a LAN browsers allow no service worker, so the pages themselves retry.
// Each waiting round keeps its form's one-time token: a retry after a save whose answer was lost is recognised
// by the server ("already saved") and never stores the round twice.
(function () {
  "use strict";
  var box = document.getElementById("outbox");
  if (!box || !window.fetch || !window.localStorage) return;
  var game = box.getAttribute("data-game");
  var key = "p10:outbox:" + game;
  var sending = false;
  // The words are the page's (data-waiting-one, -few, -other: one per plural form of its language).
  var plurals = null;
  try { plurals = new Intl.PluralRules(document.documentElement.lang || undefined); } catch (e) { /* one/other */ }
  function waitingText(n) {
    var form = plurals ? plurals.select(n) : (n === 1 ? "one" : "other");
    var text = box.getAttribute("data-waiting-" + form) || box.getAttribute("data-waiting-other") || "{n}";
    return text.replace("{n}", String(n));
  }

  function load() {
    try { return JSON.parse(localStorage.getItem(key) || "[]"); } catch (e) { return []; }
  }
  function store(list) {
    if (list.length) localStorage.setItem(key, JSON.stringify(list));
    else localStorage.removeItem(key);
  }

  function show() {
    var list = load();
    box.hidden = !list.length;
    if (!list.length) return;
    var refused = list.filter(function (e) { return e.refused; });
    var waiting = list.length - refused.length;
    var parts = [];
    if (waiting) {
      parts.push(waitingText(waiting));
    }
    refused.forEach(function (e) {
      parts.push((box.getAttribute("data-refused") || "{round}").replace("{round}", String(e.round)));
    });
    box.textContent = parts.join(" ");
  }

  function post(entry) {
    var data = new FormData();
    entry.fields.forEach(function (pair) { data.append(pair[0], pair[1]); });
    // "manual": a redirect means the server is done with the form (saved, already saved, or game over); any
    // page in answer means it refused the round and says why when the form is sent from the page itself.
    return fetch(entry.action, { method: "POST", body: data, redirect: "manual", credentials: "same-origin" })
      .then(function (r) { return r.type === "opaqueredirect" || (r.status >= 300 && r.status < 400); });
  }

  function flush() {
    if (sending) return Promise.resolve();
    var list = load().filter(function (e) { return !e.refused; });
    if (!list.length) { show(); return Promise.resolve(); }
    sending = true;
    var entry = list[0];
    return post(entry).then(function (done) {
      var now = load();
      now.forEach(function (e) { if (e.once === entry.once && !done) e.refused = true; });
      store(now.filter(function (e) { return e.once !== entry.once || !done; }));
      sending = false;
      show();
      if (done) {
        window.dispatchEvent(new CustomEvent("p10:outbox-sent", { detail: entry }));
        return flush();
      }
    }, function () {
      sending = false;  // still offline: the next "online" event or the timer tries again
      show();
    });
  }

  window.p10Outbox = {
    add: function (entry) {
      var list = load().filter(function (e) { return e.once !== entry.once; });
      list.push(entry);
      store(list);
      show();
    },
    remove: function (once) {
      store(load().filter(function (e) { return e.once !== once; }));
      show();
    },
    find: function (round) {
      return load().filter(function (e) { return e.round === round; })[0] || null;
    },
    flush: flush,
    post: post
  };

  window.addEventListener("online", flush);
  setInterval(function () { if (navigator.onLine !== false) flush(); }, 10000);
  show();
  flush();
})();
