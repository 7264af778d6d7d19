// The deck walkthrough: each photo is shrunk, sent to /decks/check with its card list and the answer shown
// beside its step; "Learn" sends the checked photos to /decks/teach, and the page then polls /decks/teaching
// until the run is done. Every sentence comes from the server, in the page's language.
(function () {
  "use strict";
  const root = document.getElementById("deck-teach");
  if (!root || !window.fetch || !window.FormData || !window.phase10Photo) return;
  const $ = (id) => document.getElementById(id);
  const script = JSON.parse($("deck-script").textContent);
  const words = script.words;
  const csrf = root.dataset.csrf;
  const fill = (text, values) => text.replace(/\{(\w+)\}/g, (m, k) => (k in values ? String(values[k]) : m));
  const plurals = typeof Intl !== "undefined" && Intl.PluralRules ? new Intl.PluralRules(script.lang) : null;
  const counted = (forms, n) => fill(forms[plurals ? plurals.select(n) : (n === 1 ? "one" : "other")] || forms.other, {n: n});
  // JPEG at this quality keeps the fine edges of the cards the outlines are fitted to.
  const QUALITY = 0.9;
  const POLL_MS = 1500;
  const errorText = (body) => (body.shown && body.shown.error) || body.error;

  const steps = Array.from(root.querySelectorAll(".deck-step")).map((el) => ({
    el: el,
    cards: el.querySelector(".deck-cards"),
    thumb: el.querySelector(".deck-thumb"),
    result: el.querySelector(".deck-result"),
    photo: null,   // {blob, name, url}
    ok: false,
    seq: 0,
  }));
  const start = $("deck-start");
  const nameInput = document.querySelector("#deck-form input[name='name']");

  function answer(r) {
    return r.json().catch(() => ({error: fill(words.server_answered, {status: r.status})})).then((body) => ({ok: r.ok, status: r.status, body: body}));
  }

  function mark(step, state, text) {
    step.ok = state === "ok";
    step.el.classList.toggle("checked", state === "ok");
    step.el.classList.toggle("refused", state === "bad");
    step.result.textContent = text;
    summary();
  }

  function summary() {
    const n = steps.filter((s) => s.ok).length;
    $("deck-summary").textContent = n ? counted(words.checked, n) : words.none_checked;
    if (start) start.disabled = !n || !nameInput.value.trim();
  }

  function check(step) {
    if (!step.photo) return;
    const mine = ++step.seq;
    mark(step, "busy", words.checking);
    const fd = new FormData();
    fd.append("photo", step.photo.blob, step.photo.name);
    fd.append("cards", step.cards.value);
    fd.append("lang", script.lang);
    fetch(script.check, {method: "POST", body: fd, headers: {"X-CSRFToken": csrf}})
      .then(answer)
      .then(({ok, body}) => {
        if (mine !== step.seq) return;
        if (ok) mark(step, "ok", "✓ " + body.message);
        else mark(step, "bad", "✗ " + (errorText(body) || words.not_sent));
      })
      .catch(() => { if (mine === step.seq) mark(step, "bad", words.not_sent); });
  }

  function usePhoto(step, file) {
    if (!file) return;
    const mine = ++step.seq;
    mark(step, "busy", words.preparing);
    window.phase10Photo.shrink(file, script.long_side, QUALITY).then((sent) => {
      if (mine !== step.seq) return;
      if (step.photo) URL.revokeObjectURL(step.photo.url);
      step.photo = {blob: sent.blob, name: sent.name, url: URL.createObjectURL(sent.blob)};
      step.thumb.src = step.photo.url;
      step.thumb.hidden = false;
      check(step);
    });
  }

  steps.forEach((step) => {
    // What the browser cannot show (not an image) gets no broken picture; the check says what it is.
    step.thumb.addEventListener("error", () => { step.thumb.hidden = true; });
    step.el.querySelectorAll(".deck-photo").forEach((input) => {
      input.addEventListener("change", () => { usePhoto(step, input.files[0]); input.value = ""; });
    });
    // A list changed after its photo was checked is checked again: the photo must show what the list names.
    step.cards.addEventListener("change", () => check(step));
  });
  // A name taken already is taught again only with the box ticked, which names that deck; a tick never carries
  // over to another name.
  const taken = new Set(script.taken || []);
  const replaceBox = $("deck-replace-box");
  function offerReplace() {
    const name = nameInput ? nameInput.value.trim() : "";
    const shown = taken.has(name);
    $("deck-replace").hidden = !shown;
    if (!shown || $("deck-replace-label").dataset.name !== name) replaceBox.checked = false;
    $("deck-replace-label").dataset.name = name;
    $("deck-replace-label").textContent = shown ? fill(words.replace, {name: name}) : "";
  }
  if (nameInput) nameInput.addEventListener("input", () => { offerReplace(); summary(); });
  offerReplace();
  summary();

  // ------------------------------------------------------------------ learning

  let polling = null;

  function showProgress(job) {
    $("deck-progress").hidden = false;
    $("deck-job-name").textContent = job.name ? "· " + job.name : "";
    const running = job.state === "starting" || job.state === "running";
    let stage = job.stage_label || words.starting;
    if (running && job.total) stage += " · " + Math.min(100, Math.round((100 * job.done) / job.total)) + " %";
    $("deck-stage").textContent = running ? stage : "";
    const planned = (job.minutes || 15) * 60;
    // The run plans its stages to end within its minutes, so the time spent is the surest measure of the whole.
    const share = job.state === "done" ? 1 : Math.min(0.99, (job.elapsed_s || 0) / planned);
    $("deck-bar").value = Math.round(share * 1000);
    const s = job.elapsed_s || 0;
    $("deck-elapsed").textContent = fill(running ? words.elapsed : words.took, {minutes: Math.floor(s / 60), seconds: s % 60});
    $("deck-error").hidden = job.state !== "failed";
    $("deck-error").textContent = job.state === "failed" ? job.error || "" : "";
    $("deck-done").hidden = job.state !== "done";
    if (job.state === "done") {
      $("deck-ready").textContent = fill(words.ready, {name: job.deck || job.name});
      $("deck-default-name").value = job.deck || job.name;
      taken.add(job.deck || job.name);
      offerReplace();
    }
    if (start) start.disabled = running || !steps.some((st) => st.ok) || !nameInput.value.trim();
    return running;
  }

  function poll() {
    polling = null;
    fetch(script.status, {cache: "no-store"})
      .then(answer)
      .then(({ok, body}) => {
        if (!ok) throw new Error("status");
        if (showProgress(body)) polling = setTimeout(poll, POLL_MS);
      })
      .catch(() => {
        $("deck-elapsed").textContent = words.lost;
        polling = setTimeout(poll, POLL_MS * 2);
      });
  }

  const form = $("deck-form");
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    if (!start || start.disabled) return;
    const ready = steps.filter((s) => s.ok);
    const fd = new FormData();
    fd.append("name", nameInput.value.trim());
    if (replaceBox.checked && !$("deck-replace").hidden) fd.append("replace", "1");
    fd.append("lang", script.lang);
    ready.forEach((s) => { fd.append("photo", s.photo.blob, s.photo.name); fd.append("cards", s.cards.value); });
    start.disabled = true;
    $("deck-start-error").hidden = true;
    fetch(script.teach, {method: "POST", body: fd, headers: {"X-CSRFToken": csrf}})
      .then(answer)
      .then(({ok, body}) => {
        if (!ok) {
          // Taught under that name from elsewhere since this page was opened: offer the box now.
          if (body.code === "deck-exists") { taken.add(nameInput.value.trim()); offerReplace(); }
          $("deck-start-error").textContent = errorText(body) || words.not_sent;
          $("deck-start-error").hidden = false;
          if (body.photo && ready[body.photo - 1]) mark(ready[body.photo - 1], "bad", "✗ " + errorText(body));
          summary();
          return;
        }
        showProgress(body);
        $("deck-progress").scrollIntoView({block: "start"});
        if (!polling) polling = setTimeout(poll, POLL_MS);
      })
      .catch(() => {
        $("deck-start-error").textContent = words.not_sent;
        $("deck-start-error").hidden = false;
        summary();
      });
  });

  // A run already going on (started here before a reload, or from another phone) is followed at once.
  fetch(script.status, {cache: "no-store"}).then(answer).then(({ok, body}) => {
    if (ok && (body.state === "starting" || body.state === "running") && showProgress(body) && !polling) {
      polling = setTimeout(poll, POLL_MS);
    }
  }).catch(() => {});
})();
