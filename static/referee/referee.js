// The photo referee page: chips for the cards, a photo with a box on each card, and the engine's verdict.
// Every verdict comes from POST /api/check, every piece of hand advice from POST /api/advise: no rule is decided
// in this file. No sentence is built here either: the page's own come from the server in #referee-words, in the
// page's language, and each answer brings the engine's, worded in that language, as "shown".
(function () {
  "use strict";
  const root = document.getElementById("referee");
  if (!root) return;
  root.classList.add("js");
  const $ = (id) => document.getElementById(id);
  const initial = JSON.parse($("referee-state").textContent);
  const words = JSON.parse($("referee-words").textContent);
  const lang = initial.lang;
  // A text from the server with its {name} places filled in.
  const fill = (text, values) => text.replace(/\{(\w+)\}/g, (m, k) => (k in values ? String(values[k]) : m));
  const plurals = typeof Intl !== "undefined" && Intl.PluralRules ? new Intl.PluralRules(lang) : null;
  const counted = (forms, n) => forms[plurals ? plurals.select(n) : (n === 1 ? "one" : "other")] || forms.other;
  const catalogue = initial.catalogue;
  const mode = initial.mode;
  const game = initial.game;
  const api = root.dataset.api;
  // Below this confidence (detector score x classifier probability) a card is marked "?" for the player to check.
  // Chosen on the family dev scenes (models/MODEL_CARD.md, "Which cards the page marks to check"): it marks most
  // misread cards and few right ones; a misread card left unmarked can turn the verdict, a right one marked costs
  // a glance.
  const UNSURE = 0.6;
  // A phone photo is shrunk before it is sent: the camera reads the cards as well from this size, and a few
  // hundred kilobytes cross a busy Wi-Fi where several megabytes stall.
  const LONG_SIDE = 1600;
  const QUALITY = 0.85;
  // Labels on the photo are drawn at this size on screen, whatever the photo's pixels, to stay readable.
  const LABEL_PX = 13;
  const unsure = (chip) => chip.conf !== null && chip.conf !== undefined && chip.conf < UNSURE;

  let rules = initial.rules;
  let rows = [];            // rows of chips: {card, box, conf, photo, typed}
  let photo = null;         // {id, file, url, width, height}
  let photoSeq = 0;
  let lastVerdict = null;
  let inflight = null;
  let timer = null;
  let placing = null;       // a chip waiting for its place on the photo
  let toPlace = [];         // the chips that wait after it
  let revealPending = false; // the next verdict is the answer to a photo: bring it into view

  // ------------------------------------------------------------------ cards

  const deck = () => catalogue[rules.name].deck;
  const SUIT_SIGN = {S: "♠", H: "♥", D: "♦", C: "♣"};

  function face(card) {
    if (card === "W") return {cls: "c-W", text: "W", title: words.wild};
    if (card === "S") return {cls: "c-S", text: "S", title: words.skip};
    if (card === "JK") return {cls: "c-P", text: "🃏", title: words.joker};
    let m = /^([RBGY])(\d{1,2})$/.exec(card);
    if (m) return {cls: "c-" + m[1], text: m[2], title: fill(words.coloured[m[1]], {number: m[2]})};
    m = /^(A|J|Q|K|\d{1,2})([SHDC])$/.exec(card);
    if (m) {
      const red = m[2] === "H" || m[2] === "D";
      return {cls: "c-P" + (red ? " red" : ""), text: m[1] + SUIT_SIGN[m[2]], title: fill(words.suited[m[2]], {rank: m[1]})};
    }
    return {cls: "c-S", text: card, title: card};
  }

  function chipEl(chip, mini) {
    const f = face(chip.card);
    const el = document.createElement(mini ? "span" : "button");
    if (!mini) el.type = "button";
    el.className = "chip " + f.cls;
    el.textContent = f.text;
    el.title = f.title;
    // A reading the camera is unsure of says so to a screen reader too, not only with its "?".
    el.setAttribute("aria-label", !mini && unsure(chip) ? fill(words.unsure, {card: f.title}) : f.title);
    el.dataset.card = chip.card;
    if (!mini && unsure(chip)) el.classList.add("unsure");
    if (!mini && chip.typed) el.classList.add("typed");
    return el;
  }

  const parseTokens = (text) => (text || "").replace(/,/g, " ").split(/\s+/).filter(Boolean).map((t) => t.toUpperCase());
  const newChip = (card, extra) => Object.assign({card: card, box: null, conf: null, photo: null, typed: true}, extra || {});

  // ------------------------------------------------------------------ rows

  function groupsOfPhase() {
    const p = catalogue[rules.name].phases[String(currentPhase())];
    return p ? p.groups : 1;
  }

  // The phase chosen, or null where a hand is advised toward each phase (Masters).
  function currentPhase() {
    const sel = $("ref-phase");
    if (!sel) return initial.phase;
    return sel.value === "" ? null : parseInt(sel.value, 10);
  }

  function ensureRows() {
    const want = mode === "hit" ? 2 : mode === "hand" ? 1 : Math.max(1, groupsOfPhase());
    while (rows.length < want) rows.push([]);
  }

  // The words for row i: its label, its label without the note in brackets, and the row named in a sentence
  // ("add a card to …", "Add cards to …", "Move to …").
  function rowWords(i) {
    const kind = mode === "hit" ? (i === 0 ? "onto" : "cards") : mode === "hand" ? "hand" : "group";
    const out = {};
    Object.keys(words.rows[kind]).forEach((k) => { out[k] = fill(words.rows[kind][k], {n: i + 1}); });
    return out;
  }

  function rowLabel(i) { return rowWords(i).label; }

  function renderRows() {
    const box = $("ref-rows");
    box.textContent = "";
    rows.forEach((row, i) => {
      const line = document.createElement("div");
      line.className = "ref-row";
      line.dataset.row = String(i);
      const label = document.createElement("div");
      label.className = "ref-row-label";
      label.textContent = rowLabel(i);
      if (mode === "phase" && row.length === 0 && rows.length > 1) {
        const drop = document.createElement("button");
        drop.type = "button";
        drop.className = "link";
        drop.textContent = words.remove_group;
        drop.addEventListener("click", () => { rows.splice(i, 1); changed(); });
        label.appendChild(drop);
      }
      line.appendChild(label);
      row.forEach((chip, j) => {
        const el = chipEl(chip, false);
        el.addEventListener("click", () => openPicker(i, j));
        line.appendChild(el);
      });
      const add = document.createElement("button");
      add.type = "button";
      add.className = "chip add";
      add.textContent = "+";
      add.setAttribute("aria-label", rowWords(i).add);
      add.addEventListener("click", () => openPicker(i, -1));
      line.appendChild(add);
      box.appendChild(line);
    });
    drawBoxes();
    updateKeep();
  }

  function changed() {
    const present = (chip) => rows.some((row) => row.indexOf(chip) >= 0);
    toPlace = toPlace.filter(present);
    if (placing && !present(placing)) nextPlacing();
    renderRows();
    if (photo && !placing) photoStatus();
    scheduleCheck();
  }

  function photoStatus() {
    const chips = photoChips();
    if (!chips.length) { status(""); return; }
    const doubtful = chips.filter(unsure).length;
    status(fill(counted(words.found, chips.length), {n: chips.length}) +
      (doubtful ? fill(words.misread, {n: doubtful}) : "") + words.tap_to_correct);
  }

  // ------------------------------------------------------------------ the photo

  const NS = "http://www.w3.org/2000/svg";

  // Each label's width as the photo will draw it (its own font and size, in the photo's pixels); an estimate
  // while the photo is not laid out.
  function textWidths(svg, texts, size) {
    const g = svgEl("g", {}, "label");
    const probe = svgEl("text", {"font-size": size});
    g.appendChild(probe);
    svg.appendChild(g);
    const out = texts.map((text) => {
      probe.textContent = text;
      return probe.getComputedTextLength() || text.length * size * 0.62;
    });
    svg.removeChild(g);
    return out;
  }

  const overlaps = (a, b) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

  // Where each label goes: just above its box, else just below it, else a lane further out, the first place
  // that covers no other label (and, when there is room, no other card's index). Cards fanned close together
  // get their labels above and below in turn instead of on top of each other.
  function placeLabels(items, widths, width, height, size) {
    const pad = size * 0.3, h = size * 1.35, gap = Math.max(1, size * 0.2);
    const boxes = items.map((it) => ({x: it.box[0], y: it.box[1], w: it.box[2] - it.box[0], h: it.box[3] - it.box[1]}));
    const order = items.map((_, i) => i).sort((a, b) => items[a].box[0] - items[b].box[0] || items[a].box[1] - items[b].box[1]);
    const placed = [];
    const out = [];
    order.forEach((i) => {
      const [x1, y1, , y2] = items[i].box;
      const w = widths[i] + 2 * pad;
      const x = Math.max(0, Math.min(x1, width - w));
      const spots = [];
      for (let lane = 0; lane < 6; lane++) {
        spots.push({x: x, y: y1 - gap - h - lane * (h + gap), w: w, h: h, lane: lane});
        spots.push({x: x, y: y2 + gap + lane * (h + gap), w: w, h: h, lane: lane});
      }
      const inside = spots.filter((r) => r.y >= 0 && r.y + h <= height);
      const free = (r) => !placed.some((p) => overlaps(p, r));
      const clear = (r) => free(r) && !boxes.some((b, k) => k !== i && overlaps(b, r));
      const spot = inside.find(clear) || inside.find(free) || inside[0] || spots[0];
      placed.push(spot);
      out[i] = spot;
    });
    return {spots: out, pad: pad};
  }

  function svgEl(name, attrs, cls) {
    const el = document.createElementNS(NS, name);
    Object.keys(attrs).forEach((k) => el.setAttribute(k, attrs[k]));
    if (cls) el.setAttribute("class", cls);
    return el;
  }

  function drawBoxes(highlight) {
    const svg = $("ref-boxes");
    if (!photo || !photo.width) return;
    svg.setAttribute("viewBox", "0 0 " + photo.width + " " + photo.height);
    svg.setAttribute("preserveAspectRatio", "none");
    svg.textContent = "";
    const shown = svg.getBoundingClientRect().width || Math.min(window.innerWidth, 680);
    const size = LABEL_PX * photo.width / shown;
    const chips = [];
    rows.forEach((row) => row.forEach((chip) => { if (chip.photo === photo.id && chip.box) chips.push(chip); }));
    const items = chips.map((chip) => ({box: chip.box, text: chip.card + (unsure(chip) ? "?" : "")}));
    const widths = textWidths(svg, items.map((it) => it.text), size);
    const layout = placeLabels(items, widths, photo.width, photo.height, size);
    chips.forEach((chip) => {
      const [x1, y1, x2, y2] = chip.box;
      const cls = "box" + (unsure(chip) ? " unsure" : "") + (chip === highlight ? " picked" : "");
      svg.appendChild(svgEl("rect", {x: x1, y: y1, width: x2 - x1, height: y2 - y1}, cls));
    });
    chips.forEach((chip, i) => {
      const spot = layout.spots[i];
      const [x1, y1, , y2] = chip.box;
      if (spot.lane > 0) {
        const above = spot.y < y1;
        svg.appendChild(svgEl("line", {x1: x1, y1: above ? y1 : y2, x2: spot.x + layout.pad, y2: above ? spot.y + spot.h : spot.y}, "leader"));
      }
      const g = svgEl("g", {"data-card": chip.card}, "label" + (unsure(chip) ? " unsure" : ""));
      g.appendChild(svgEl("rect", {x: spot.x, y: spot.y, width: spot.w, height: spot.h, rx: size * 0.25}, "label-bg"));
      const t = svgEl("text", {x: spot.x + layout.pad, y: spot.y + spot.h / 2, "font-size": size, "dominant-baseline": "central"});
      t.textContent = items[i].text;
      g.appendChild(t);
      svg.appendChild(g);
    });
  }

  window.addEventListener("resize", () => drawBoxes());

  function medianBox() {
    const sizes = [];
    rows.forEach((row) => row.forEach((c) => { if (c.photo === photo.id && c.box) sizes.push([c.box[2] - c.box[0], c.box[3] - c.box[1]]); }));
    if (!sizes.length) return [photo.width / 25, photo.width / 18];
    sizes.sort((a, b) => a[0] - b[0]);
    return sizes[Math.floor(sizes.length / 2)];
  }

  // Cards added to a photo's reading are placed on it one after the other, so the photo can teach the camera.
  function startPlacing(chips) {
    if (!photo) return;
    toPlace = chips.filter((c) => c.photo === photo.id && !c.box);
    nextPlacing();
  }

  function nextPlacing() {
    placing = toPlace.shift() || null;
    $("ref-photo").classList.toggle("placing", !!placing);
    if (placing) status(fill(words.place_it, {card: face(placing.card).title}));
  }

  $("ref-boxes").addEventListener("click", (ev) => {
    if (!placing || !photo) return;
    const rect = ev.currentTarget.getBoundingClientRect();
    const x = (ev.clientX - rect.left) / rect.width * photo.width;
    const y = (ev.clientY - rect.top) / rect.height * photo.height;
    const [w, h] = medianBox();
    placing.box = [Math.max(0, x - w / 2), Math.max(0, y - h / 2), Math.min(photo.width, x + w / 2), Math.min(photo.height, y + h / 2)];
    placing.photo = photo.id;
    nextPlacing();
    if (!placing) status(words.placed);
    renderRows();
  });

  // The photo as it will be sent (static/shrink.js): upright, shrunk to LONG_SIDE, JPEG.
  function shrinkPhoto(file) { return window.phase10Photo.shrink(file, LONG_SIDE, QUALITY); }

  function usePhoto(file) {
    if (!file) return;
    photoSeq += 1;
    const id = photoSeq;
    status(words.preparing);
    busy(true);
    shrinkPhoto(file).then((sent) => { if (id === photoSeq) sendPhoto(id, sent); });
  }

  function sendPhoto(id, sent) {
    if (photo) URL.revokeObjectURL(photo.url);
    // Everything about this photo (what is shown, the boxes, taps that place a card, the copy kept for
    // training) uses the image that was sent, in its pixels.
    photo = {id: id, file: sent.blob, name: sent.name, url: URL.createObjectURL(sent.blob), width: sent.width, height: sent.height};
    placing = null;
    toPlace = [];
    $("ref-photo").classList.remove("placing");
    $("ref-img").src = photo.url;
    $("ref-photo").hidden = false;
    $("ref-boxes").textContent = "";
    $("ref-keep-status").textContent = "";
    status(words.reading);
    const fd = new FormData();
    fd.append("photo", photo.file, photo.name);
    fd.append("rules", JSON.stringify(rules));
    fd.append("lang", lang);
    // A game's photos are read with the deck chosen for it (or the server's).
    if (game) fd.append("game", game.id);
    if (mode === "hit") {
      fd.append("kind", $("ref-kind").value);
      fd.append("end", $("ref-end").value);
      fd.append("phase_down", $("ref-down").value === "1" ? "true" : "false");
      if (rows[0] && rows[0].length && !rows[1].length) fd.append("onto", rows[0].map((c) => c.card).join(" "));
    } else if (mode === "phase") {
      fd.append("phase", String(currentPhase()));
    }
    fetch(mode === "hand" ? root.dataset.hand : api, {method: "POST", body: fd})
      .then((r) => r.json().catch(() => ({error: fill(words.server_answered, {status: r.status})})).then((body) => ({ok: r.ok, status: r.status, body: body})))
      .then(({ok, body}) => {
        if (!photo || photo.id !== id) return;
        busy(false);
        if (body.width) { photo.width = body.width; photo.height = body.height; }
        // The camera may have read the photo turned (taken from across or beside the table); a kept photo is
        // stored turned the same way, its cards upright.
        photo.turned = body.turned || 0;
        revealPending = true;
        if (!ok && !body.cards) { status(""); showError(errorText(body) || words.unreadable); return; }
        const found = (body.cards || []).map((c) => newChip(c.card, {box: c.box, conf: c.confidence, photo: id, typed: false}));
        const detected = (body.detected || []).map((g) => g.map((k) => found[k]));
        if (mode === "hand") {
          rows = [found];
        } else if (mode === "hit") {
          if (body.onto && fd.has("onto")) rows[1] = detected.flat();
          else rows = [detected[0] || [], detected.slice(1).flat()];
        } else {
          rows = detected.length ? detected : [[]];
        }
        ensureRows();
        renderRows();
        photoStatus();
        // A chosen deck gone from the server; a heavily compressed photo, whose small indexes may have lost their
        // colour. Each note in the page's language where the answer has it, else in English.
        [["ref-deck-note", "deck_note"], ["ref-photo-note", "photo_note"]].forEach(([id, key]) => {
          const note = $(id);
          if (note) { note.textContent = (body.shown && body.shown[key]) || body[key] || ""; note.hidden = !body[key]; }
        });
        if (!ok) { showError(errorText(body)); return; }
        if (mode === "hand") runCheck(); else showVerdict(body);
      })
      .catch(() => { busy(false); status(""); revealPending = true; showError(words.not_sent); });
  }

  ["ref-take", "ref-pick"].forEach((id) => {
    const input = $(id);
    if (input) input.addEventListener("change", () => { usePhoto(input.files[0]); input.value = ""; });
  });

  // ------------------------------------------------------------------ checking

  function status(text) { $("ref-status").textContent = text; }
  // A refusal in the page's language when the server worded it so, else as the API says it.
  function errorText(body) { return (body.shown && body.shown.error) || body.error; }
  function busy(on) { $("ref-verdict").classList.toggle("busy", on); }

  // After a photo the verdict is below the photo and the chips, out of sight on a phone: bring it up.
  function reveal() {
    if (!revealPending) return;
    revealPending = false;
    const v = $("ref-verdict");
    const calm = window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
    v.scrollIntoView({block: v.offsetHeight > window.innerHeight ? "start" : "nearest", behavior: calm ? "auto" : "smooth"});
  }

  function requestBody() {
    const cards = (row) => row.map((c) => c.card);
    if (mode === "hand") {
      const hand = cards(rows.flat());
      if (!hand.length) return null;
      const body = {cards: hand, lang: lang};
      const phase = currentPhase();
      if (phase !== null) body.phase = phase;
      // From a game the server knows the rules and, for a player, the phases still to do.
      if (game) { body.game = game.id; if (game.player) body.player = game.player; } else body.rules = rules;
      return body;
    }
    if (mode === "hit") {
      if (!rows[0].length || !rows[1].length) return null;
      return {rules: rules, lang: lang, kind: $("ref-kind").value, end: $("ref-end").value || null, phase_down: $("ref-down").value === "1", onto: cards(rows[0]), cards: cards(rows[1])};
    }
    const filled = rows.filter((r) => r.length);
    if (!filled.length) return null;
    const fromPhoto = filled.some((r) => r.some((c) => !c.typed));
    // Typed in one row, the referee finds the arrangement; rows from a photo are checked as they lie.
    if (filled.length === 1 && !fromPhoto && groupsOfPhase() > 1) return {rules: rules, lang: lang, phase: currentPhase(), cards: cards(filled[0])};
    return {rules: rules, lang: lang, phase: currentPhase(), groups: filled.map(cards)};
  }

  function scheduleCheck() {
    clearTimeout(timer);
    timer = setTimeout(runCheck, 120);
  }

  function runCheck() {
    const body = requestBody();
    if (inflight) inflight.abort();
    if (!body) { lastVerdict = null; hint(); return; }
    inflight = new AbortController();
    busy(true);
    fetch(mode === "hand" ? root.dataset.advise : api, {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body), signal: inflight.signal})
      .then((r) => r.json().then((b) => ({ok: r.ok, body: b})))
      .then(({ok, body: answer}) => {
        busy(false);
        if (!ok) { showError(errorText(answer) || words.not_read); return; }
        if (mode === "hand") { showAdvice(answer); return; }
        answer.arranged = "cards" in body && mode === "phase";
        showVerdict(answer);
      })
      .catch((e) => { if (e.name !== "AbortError") { busy(false); showError(words.unreachable); } });
  }

  function hint() {
    const v = $("ref-verdict");
    v.textContent = "";
    const p = document.createElement("p");
    p.className = "muted";
    p.textContent = words.hint[mode];
    v.appendChild(p);
    showMark(null);
  }

  function showError(text) {
    lastVerdict = null;
    const v = $("ref-verdict");
    v.textContent = "";
    const p = document.createElement("p");
    p.className = "error";
    p.setAttribute("role", "alert");
    p.textContent = text;
    v.appendChild(p);
    showMark(null);
    reveal();
  }

  // A group as a list item: its title from "shown", then its cards as small chips.
  function titledGroup(g, shown) {
    const li = document.createElement("li");
    const what = document.createElement("span");
    what.className = "what";
    what.textContent = shown.title;
    li.appendChild(what);
    const mini = document.createElement("span");
    mini.className = "mini";
    g.cards.forEach((c) => mini.appendChild(chipEl({card: c}, true)));
    li.appendChild(mini);
    return li;
  }

  // A group of a verdict: its cards from the answer, its title and what its wilds stand for from "shown".
  function groupItem(g, shown) {
    const li = titledGroup(g, shown);
    if (shown.wilds) {
      const as = document.createElement("span");
      as.className = "wild-as";
      as.textContent = shown.wilds;
      li.appendChild(as);
    }
    return li;
  }

  function hitLink(g) {
    const params = new URLSearchParams({mode: "hit", kind: g.kind, onto: g.cards.join(" ")});
    if (game) { params.set("game", game.id); if (game.player) params.set("player", game.player); }
    else { params.set("rules", rules.name); if (rules.wrap_runs) params.set("wrap", "1"); }
    const a = document.createElement("a");
    a.className = "hit-this";
    a.href = location.pathname + "?" + params.toString();
    a.textContent = words.hit_this;
    return a;
  }

  function showVerdict(answer) {
    drawVerdict(answer);
    reveal();
  }

  function drawVerdict(answer) {
    lastVerdict = answer;
    const v = $("ref-verdict");
    v.textContent = "";
    const head = document.createElement("p");
    const text = document.createElement("p");
    const shown = answer.shown;
    if (mode === "hit") {
      head.className = answer.legal ? "ref-ok" : "ref-bad";
      head.textContent = answer.legal ? words.legal : words.not_legal;
      v.appendChild(head);
      if (!answer.legal) { text.textContent = shown.reason; v.appendChild(text); }
      const ul = document.createElement("ul");
      ul.appendChild(groupItem(answer.legal ? answer.laid : answer.onto, shown.group));
      v.appendChild(ul);
      showMark(null);
      return;
    }
    head.className = answer.valid ? "ref-ok" : "ref-bad";
    head.textContent = answer.valid ? fill(words.valid, {phase: answer.phase, description: shown.description}) : words.not_valid;
    v.appendChild(head);
    if (!answer.valid) { text.textContent = shown.reason; v.appendChild(text); }
    if (answer.valid) {
      if (answer.arranged) { text.className = "muted small"; text.textContent = words.arranged; v.appendChild(text); }
      const ul = document.createElement("ul");
      answer.groups.forEach((g, i) => { const li = groupItem(g, shown.groups[i]); li.appendChild(hitLink(g)); ul.appendChild(li); });
      v.appendChild(ul);
    }
    showMark(answer.valid ? answer : null);
  }

  function showMark(answer) {
    const form = $("ref-mark");
    if (!form) return;
    form.hidden = !answer;
    if (answer) {
      $("ref-mark-phase").value = String(answer.phase);
      $("ref-mark-groups").value = answer.groups.map((g) => g.cards.join(" ")).join(" | ");
    }
  }

  // ------------------------------------------------------------------ hand advice

  function adviceGroup(g, shown) {
    const li = titledGroup(g, shown);
    const need = document.createElement("span");
    need.className = g.missing ? "need" : "have";
    need.textContent = g.missing ? fill(words.needs, {need: shown.need}) : "✓";
    li.appendChild(need);
    return li;
  }

  function adviceBody(a, box) {
    const summary = document.createElement("p");
    summary.className = "ref-summary";
    summary.textContent = a.shown.summary;
    box.appendChild(summary);
    const ul = document.createElement("ul");
    a.groups.forEach((g, i) => ul.appendChild(adviceGroup(g, a.shown.groups[i])));
    box.appendChild(ul);
    if (a.spare.length) {
      const spare = document.createElement("p");
      spare.className = "ref-spare muted small";
      spare.textContent = words.not_used;
      const mini = document.createElement("span");
      mini.className = "mini";
      a.spare.forEach((c) => mini.appendChild(chipEl({card: c}, true)));
      spare.appendChild(mini);
      box.appendChild(spare);
    }
  }

  function adviceHead(a) {
    const head = document.createElement("span");
    head.className = a.complete ? "ref-ok" : "ref-need";
    head.textContent = (a.complete ? "✓ " : "") + fill(words.phase, {phase: a.phase, description: a.shown.description});
    const count = document.createElement("span");
    count.className = "ref-missing";
    count.textContent = " · " + a.shown.missing;
    head.appendChild(count);
    return head;
  }

  // One phase: its arrangement in full. Several (Masters): the closest open, the others one line each.
  function showAdvice(answer) {
    lastVerdict = answer;
    const v = $("ref-verdict");
    v.textContent = "";
    const list = answer.advice || [answer];
    list.forEach((a, i) => {
      const box = document.createElement(list.length > 1 ? "details" : "div");
      box.className = "ref-advice";
      box.dataset.phase = String(a.phase);
      const head = document.createElement(list.length > 1 ? "summary" : "p");
      head.appendChild(adviceHead(a));
      box.appendChild(head);
      if (list.length > 1 && i === 0) box.open = true;
      adviceBody(a, box);
      v.appendChild(box);
    });
    showMark(null);
    reveal();
  }

  // ------------------------------------------------------------------ the picker

  // Adding cards keeps the picker open: each pick adds a chip (and asks the referee again) until Done, so a
  // hand is tapped in without reopening it for every card. Changing a card closes it after the pick.
  const picker = $("ref-picker");
  let target = null;       // {row, index, added} (index -1: adding cards; added: [{row, chip}] in this opening)
  let pickedSuit = null;   // kept between openings: cards are often tapped in colour by colour

  function pickButton(label, cls, onClick, pressed) {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "pick " + (cls || "");
    b.textContent = label;
    if (pressed !== undefined) b.setAttribute("aria-pressed", pressed ? "true" : "false");
    b.addEventListener("click", onClick);
    return b;
  }

  function setCard(card) {
    if (target.index < 0) {
      const chip = newChip(card, {photo: photo ? photo.id : null});
      rows[target.row].push(chip);
      target.added.push({row: target.row, chip: chip});
      changed();
      fillPicker();
      return;
    }
    const chip = rows[target.row][target.index];
    chip.card = card;
    chip.conf = null;  // a corrected card is certain
    picker.close("done");
    changed();
  }

  function suitOf(card, playing) {
    const m = playing ? /^(A|J|Q|K|\d{1,2})([SHDC])$/.exec(card) : /^([RBGY])(\d{1,2})$/.exec(card);
    return m ? {suit: playing ? m[2] : m[1], rank: playing ? m[1] : m[2]} : null;
  }

  function fillAdded() {
    const strip = $("ref-picker-added");
    strip.textContent = "";
    if (target.index >= 0) { strip.hidden = true; return; }
    strip.hidden = false;
    const row = rows[target.row];
    const label = document.createElement("span");
    label.className = "small muted";
    label.textContent = row.length ? rowWords(target.row).short + ":" : words.no_cards_yet;
    strip.appendChild(label);
    row.forEach((c) => strip.appendChild(chipEl({card: c.card}, true)));
  }

  function fillPicker() {
    const chip = target.index >= 0 ? rows[target.row][target.index] : null;
    $("ref-picker-title").textContent = chip ? fill(words.change, {card: face(chip.card).title}) : rowWords(target.row).title;
    const current = chip ? chip.card : "";
    const suits = $("ref-suits"), ranks = $("ref-ranks"), specials = $("ref-specials"), moves = $("ref-moves");
    suits.textContent = ""; ranks.textContent = ""; specials.textContent = ""; moves.textContent = "";
    const playing = deck() === "playing-cards";
    const suitKeys = playing ? ["S", "H", "D", "C"] : ["R", "B", "G", "Y"];
    const cur = suitOf(current, playing);
    if (!pickedSuit || suitKeys.indexOf(pickedSuit) < 0) pickedSuit = cur ? cur.suit : suitKeys[0];
    suitKeys.forEach((s) => {
      const label = playing ? SUIT_SIGN[s] : words.colours[s];
      const cls = playing ? (s === "H" || s === "D" ? "s-red" : "") : "c-" + s;
      suits.appendChild(pickButton(label, cls, () => { pickedSuit = s; fillPicker(); }, s === pickedSuit));
    });
    ranks.className = "ref-ranks " + (playing ? (pickedSuit === "H" || pickedSuit === "D" ? "s-red" : "") : "c-" + pickedSuit);
    const rankList = playing ? ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"] : ["1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12"];
    rankList.forEach((r) => {
      const card = playing ? r + pickedSuit : pickedSuit + r;
      ranks.appendChild(pickButton(r, "", () => setCard(card), card === current && cur !== null && r === cur.rank));
    });
    (playing ? [["JK", words.joker]] : [["W", words.wild], ["S", words.skip]]).forEach(([card, label]) => {
      specials.appendChild(pickButton(label, "", () => setCard(card), card === current));
    });
    fillAdded();
    $("ref-remove").hidden = !chip;
    $("ref-undo").hidden = chip !== null || !target.added.length;
    const next = $("ref-next");
    next.hidden = chip !== null || target.row >= rows.length - 1;
    next.textContent = mode === "hit" ? words.to_add_next : words.next_group;
    if (!chip) return;
    const row = rows[target.row];
    if (target.index > 0) moves.appendChild(pickButton(words.earlier, "", () => { swap(-1); }));
    if (target.index < row.length - 1) moves.appendChild(pickButton(words.later, "", () => { swap(1); }));
    rows.forEach((_, k) => {
      if (k === target.row) return;
      moves.appendChild(pickButton(rowWords(k).move, "", () => {
        const [moved] = rows[target.row].splice(target.index, 1);
        rows[k].push(moved);
        target = null;
        picker.close("moved");
        changed();
      }));
    });
    if (mode === "phase" && row.length > 1) {
      moves.appendChild(pickButton(words.new_group, "", () => {
        const [moved] = rows[target.row].splice(target.index, 1);
        rows.push([moved]);
        target = null;
        picker.close("moved");
        changed();
      }));
    }
  }

  function swap(step) {
    const row = rows[target.row];
    const j = target.index + step;
    [row[target.index], row[j]] = [row[j], row[target.index]];
    target.index = j;
    fillPicker();
    changed();
  }

  $("ref-undo").addEventListener("click", () => {
    const last = target && target.added.pop();
    if (!last) return;
    const k = rows[last.row].indexOf(last.chip);
    if (k >= 0) rows[last.row].splice(k, 1);
    changed();
    fillPicker();
  });

  $("ref-next").addEventListener("click", () => {
    if (!target || target.row >= rows.length - 1) return;
    target.row += 1;
    fillPicker();
  });

  function openPicker(row, index) {
    target = {row: row, index: index, added: []};
    // A card being changed starts from its own colour; cards being added from the last colour picked.
    if (index >= 0) pickedSuit = null;
    fillPicker();
    if (index >= 0) drawBoxes(rows[row][index]);
    if (typeof picker.showModal === "function") picker.showModal(); else picker.setAttribute("open", "");
  }

  picker.addEventListener("close", () => {
    const was = target;
    target = null;
    if (was && picker.returnValue === "remove" && was.index >= 0) {
      rows[was.row].splice(was.index, 1);
      changed();
    } else {
      drawBoxes();
      if (was && photo) {
        // Cards added to a photo, or a card without a box changed, wait for their place on the photo.
        const chips = was.index >= 0 ? [rows[was.row][was.index]].filter(Boolean) : was.added.map((a) => a.chip);
        const unplaced = chips.filter((c) => c.photo === photo.id && !c.box);
        if (unplaced.length) startPlacing(unplaced);
      }
    }
    picker.returnValue = "";
  });

  // ------------------------------------------------------------------ keeping a photo for training

  function photoChips() {
    const out = [];
    if (!photo) return out;
    rows.forEach((row) => row.forEach((c) => { if (c.photo === photo.id) out.push(c); }));
    return out;
  }

  function updateKeep() {
    const section = $("ref-keep");
    const chips = photoChips();
    // Only a device holding the game's edit link may keep photos (the server checks it too).
    section.hidden = !photo || !photo.width || !chips.length || deck() !== "standard" || !(game && game.editor);
    const unplaced = chips.filter((c) => !c.box);
    const allow = $("ref-allow").checked;
    $("ref-keep-button").disabled = !allow || unplaced.length > 0;
    if (unplaced.length) {
      $("ref-keep-status").textContent = fill(counted(words.unplaced, unplaced.length), {n: unplaced.map((c) => c.card).join(" ")});
    }
  }

  $("ref-allow").addEventListener("change", updateKeep);

  $("ref-keep-button").addEventListener("click", () => {
    const chips = photoChips();
    const fd = new FormData();
    fd.append("photo", photo.file);
    fd.append("allow", "1");
    fd.append("game", game.id);
    fd.append("width", String(photo.width));
    fd.append("height", String(photo.height));
    fd.append("turned", String(photo.turned || 0));
    fd.append("cards", JSON.stringify(chips.map((c) => ({card: c.card, box: c.box}))));
    fd.append("groups", JSON.stringify(rows.map((r) => r.map((c) => c.card))));
    fd.append("phase", mode === "phase" ? String(currentPhase()) : "");
    const out = $("ref-keep-status");
    out.textContent = words.keeping;
    $("ref-keep-button").disabled = true;
    fetch(root.dataset.keep, {method: "POST", body: fd, headers: {"X-CSRFToken": root.dataset.csrf}})
      .then((r) => r.json().catch(() => ({error: fill(words.refused, {status: r.status})})))
      .then((body) => {
        out.textContent = body.error ? fill(words.not_kept, {error: errorText(body)}) : body.message;
        $("ref-allow").checked = false;
        updateKeep();
      })
      .catch(() => { out.textContent = words.not_kept_offline; updateKeep(); });
  });

  // ------------------------------------------------------------------ set-up

  const rulesSel = $("ref-rules"), wrap = $("ref-wrap"), phaseSel = $("ref-phase");

  function readRules() {
    if (!rulesSel) return;
    const before = rules.name;
    rules = {name: rulesSel.value, wrap_runs: !!(wrap && wrap.checked)};
    if (before !== rules.name && catalogue[before].deck !== catalogue[rules.name].deck) {
      rows = [];
      status(words.deck_changed);
    }
    if (phaseSel) {
      const keep = phaseSel.value;
      phaseSel.textContent = "";
      const each = mode === "hand" && catalogue[rules.name].choose_phase;
      if (each) phaseSel.appendChild(new Option(words.every_phase, ""));
      Object.entries(catalogue[rules.name].phases).forEach(([n, p]) => {
        const o = document.createElement("option");
        o.value = n;
        o.textContent = fill(words.phase_option, {phase: n, description: p.description});
        phaseSel.appendChild(o);
      });
      if (catalogue[rules.name].phases[keep] || (each && keep === "")) phaseSel.value = keep;
    }
    const shoot = root.querySelector(".ref-shoot");
    if (shoot) {
      const phase10 = deck() === "standard";
      shoot.hidden = !phase10;
      $("ref-camera-tip").hidden = !phase10;
      $("ref-camera-deck").hidden = phase10;
    }
    if (mode === "hit") {
      const kind = $("ref-kind");
      const has = Array.from(kind.options).some((o) => o.value === "suit");
      if (deck() === "playing-cards" && !has) kind.add(new Option(words.one_suit, "suit"));
      if (deck() !== "playing-cards" && has) kind.remove(Array.from(kind.options).findIndex((o) => o.value === "suit"));
    }
  }

  if (rulesSel) rulesSel.addEventListener("change", () => { readRules(); ensureRows(); changed(); });
  if (wrap) wrap.addEventListener("change", () => { readRules(); scheduleCheck(); });
  if (phaseSel) phaseSel.addEventListener("change", () => { ensureRows(); changed(); });
  ["ref-kind", "ref-end", "ref-down"].forEach((id) => { const el = $(id); if (el) el.addEventListener("change", scheduleCheck); });
  const addGroup = $("ref-add-group");
  if (addGroup) addGroup.addEventListener("click", () => { rows.push([]); renderRows(); });
  $("ref-setup").addEventListener("submit", (ev) => { ev.preventDefault(); runCheck(); });

  readRules();
  if (mode === "hit") {
    rows = [parseTokens(initial.onto).map((c) => newChip(c)), parseTokens(initial.cards).map((c) => newChip(c))];
  } else if (mode === "hand") {
    rows = [parseTokens(initial.cards.replace(/\|/g, " ")).map((c) => newChip(c))];
  } else if (initial.cards) {
    rows = initial.cards.split("|").map((part) => parseTokens(part).map((c) => newChip(c)));
  }
  ensureRows();
  $("ref-chips").hidden = false;
  renderRows();
  if (requestBody()) runCheck();
})();
