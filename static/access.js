// An edit link carries the game's secret after "#", where browsers keep it to themselves: no server, proxy or
// log sees it. This script hands it to the server in a POST and takes it out of the address bar and history.
(function () {
  "use strict";
  var form = document.getElementById("access-form");
  var secret = location.hash.slice(1);
  if (!form || !secret) return;
  history.replaceState(null, "", location.pathname);
  document.getElementById("access-token").value = secret;
  var status = document.getElementById("access-status");
  status.textContent = status.getAttribute("data-opening") || "";
  form.submit();
})();
