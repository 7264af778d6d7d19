// The round form keeps a draft in this browser as it is typed, so a reload, Back, or a lost connection never
// loses a round; Save goes through fetch, and when the connection is down the round waits in the outbox
// (outbox.js) with the form's one-time token until it can be sent. Without this script the form posts as usual.
(function () {
  "use strict";
  var form = document.querySelector("form.round-form");
  if (!form || !window.localStorage || !window.fetch) return;
  var key = "p10:draft:" + form.getAttribute("data-draft");
  var round = parseInt(form.getAttribute("data-round"), 10);
  var note = document.getElementById("draft-note");

  function fields() {
    var out = [];
    new FormData(form).forEach(function (value, name) { out.push([name, String(value)]); });
    return out;
  }
  function token() {
    var kept = form.querySelector('input[name="once_kept"]');
    return (kept && kept.value) || form.querySelector('input[name="once"]').value;
  }
  function say(text) {
    if (!note) return;
    note.textContent = text;
    note.hidden = !text;
  }

  function restore(draft) {
    var byName = {};
    draft.fields.forEach(function (pair) { (byName[pair[0]] = byName[pair[0]] || []).push(pair[1]); });
    form.querySelectorAll("input, select").forEach(function (input) {
      if (!input.name || input.name === "csrf_token" || input.name === "once" || input.name === "round") return;
      var values = byName[input.name] || [];
      if (input.type === "checkbox" || input.type === "radio") input.checked = values.indexOf(input.value) >= 0;
      else if (input.name === "once_kept") input.value = values[0] || input.value;
      else input.value = values.length ? values[0] : "";
    });
    // The counters and the "went out" marks are drawn from the fields by round.js, which listens on each entry.
    form.querySelectorAll("[data-entry] input").forEach(function (input) {
      input.dispatchEvent(new Event("input", { bubbles: true }));
    });
    form.querySelectorAll('input[name="went_out"]').forEach(function (r) {
      r.dispatchEvent(new Event("change", { bubbles: true }));
    });
  }

  function read() {
    try { return JSON.parse(localStorage.getItem(key) || "null"); } catch (e) { return null; }
  }
  var draft = read();
  if (draft && draft.round !== round) {
    localStorage.removeItem(key);  // that round was saved (or replaced) meanwhile
    draft = null;
  }
  var waiting = window.p10Outbox && window.p10Outbox.find(round);
  if (form.getAttribute("data-fresh") === "1" && (waiting || draft)) {
    restore(waiting || draft);
    say(waiting ? "" : (note && note.getAttribute("data-restored")) || "");
  }

  function keep() {
    localStorage.setItem(key, JSON.stringify({ round: round, fields: fields(), at: Date.now() }));
  }
  form.addEventListener("input", keep);
  form.addEventListener("change", keep);

  function done() {
    localStorage.removeItem(key);
    if (window.p10Outbox) window.p10Outbox.remove(token());
    location.href = form.getAttribute("data-after");
  }
  window.addEventListener("p10:outbox-sent", function (e) {
    if (e.detail && e.detail.round === round && e.detail.draft === key) done();
  });

  form.addEventListener("submit", function (e) {
    var button = e.submitter;
    if (e.defaultPrevented) return;  // round.js found a fault to fix first
    if (!button || button.name !== "save" || !window.p10Outbox) return;  // Preview posts as usual
    e.preventDefault();
    keep();
    var entry = { action: form.action || location.href, fields: fields().concat([["save", "1"]]),
                  once: token(), round: round, draft: key, at: Date.now() };
    function wait() {
      window.p10Outbox.add(entry);  // its banner says the round is waiting
      say("");
    }
    if (navigator.onLine === false) return wait();
    button.disabled = true;
    window.p10Outbox.post(entry).then(function (saved) {
      if (saved) return done();
      // Refused: send the form itself, so the page comes back with every reason next to its field.
      var save = document.createElement("input");
      save.type = "hidden";
      save.name = "save";
      save.value = "1";
      form.appendChild(save);
      form.submit();
    }, function () {
      button.disabled = false;
      wait();
    });
  });
})();
