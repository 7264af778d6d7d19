// Installable where browsers allow it: a service worker only on https or localhost (plain http on a LAN gets
// none, and the pages work without it).
(function () {
  "use strict";
  if ("serviceWorker" in navigator && window.isSecureContext) {
    navigator.serviceWorker.register("/sw.js").catch(function () {});
  }
})();
