// Where the app is served over https or on localhost (browsers allow service workers nowhere else), the pages
// and the last state of each game stay readable offline: every GET is answered from the network when it can
// be and kept, and from what was kept when it cannot. Writes are never cached; the outbox (outbox.js) retries
// them.
"use strict";
var CACHE = "phase10-v1";

self.addEventListener("install", function () { self.skipWaiting(); });
self.addEventListener("activate", function (event) {
  event.waitUntil(
    caches.keys().then(function (names) {
      return Promise.all(names.filter(function (n) { return n !== CACHE; }).map(function (n) { return caches.delete(n); }));
    }).then(function () { return self.clients.claim(); })
  );
});

self.addEventListener("fetch", function (event) {
  var request = event.request;
  if (request.method !== "GET" || new URL(request.url).origin !== self.location.origin) return;
  // A live page's poll asks for the network only: answering it from the cache would hide that the page is stale.
  if (request.cache === "no-store") return;
  event.respondWith(
    fetch(request).then(function (response) {
      // A 304 has no body worth keeping; the full answer kept earlier stays the one to fall back on.
      if (response.ok && response.status === 200) {
        var copy = response.clone();
        caches.open(CACHE).then(function (cache) { cache.put(request, copy); });
      }
      return response;
    }).catch(function () {
      return caches.match(request, { ignoreVary: true }).then(function (kept) {
        return kept || new Response("Offline, and this page was not opened here before.", {
          status: 503, headers: { "Content-Type": "text/plain; charset=utf-8" }
        });
      });
    })
  );
});
