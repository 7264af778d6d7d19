// Count the cards left in a hand from a photo, in the round form: the camera reads the cards (POST /api/hand),
// the player corrects them with a tap, and "Use these cards" fills that player's counters. Which counter a card
// goes on and the points come from the server's answer (the engine's): this script decides no rule.
(function () {
  "use strict";
  const boxes = document.querySelectorAll("[data-hand-photo]");
  // Without the shared shrinking (static/shrink.js, loaded before this) the photo boxes stay hidden and the
  // counters work on their own.
  if (!boxes.length || !window.fetch || !window.FormData || !window.phase10Photo) return;
  // Below this confidence (detector score x classifier probability: the API's "confidence" of each card) the
  // camera may have the colour or the number wrong, and the card is marked "?" for the player to check. The
  // referee page marks its cards at the same threshold (static/referee/referee.js says how it was chosen).
  const UNSURE = 0.6;
  const doubt = (chip) => chip.conf !== null && chip.conf !== undefined && chip.conf < UNSURE;

  // The words are the page's, in its language (#hand-photo-words); counted ones come in one form per plural
  // category, for Intl.PluralRules to pick from.
  let words = {};
  try { words = JSON.parse(document.getElementById("hand-photo-words").textContent); } catch (e) { /* English below */ }
  const fill = (text, values) => Object.keys(values || {}).reduce((t, k) => t.split("{" + k + "}").join(String(values[k])), text);
  const say = (key, fallback, values) => fill(typeof words[key] === "string" ? words[key] : fallback, values);
  let plurals = null;
  try { plurals = new Intl.PluralRules(document.documentElement.lang || undefined); } catch (e) { /* one/other */ }
  function countedText(key, n, one, other) {
    const forms = words[key] || {};
    const category = plurals ? plurals.select(n) : (n === 1 ? "one" : "other");
    return fill(forms[category] || forms.other || (n === 1 ? one : other), {n: n});
  }
  // A phone photo is shrunk before it is sent (static/shrink.js, as on the referee page): the camera reads the
  // cards as well from this size, and a few hundred kilobytes cross a busy Wi-Fi where several megabytes stall.
  const LONG_SIDE = 1600;
  const QUALITY = 0.85;
  const shrinkPhoto = (file) => window.phase10Photo.shrink(file, LONG_SIDE, QUALITY, "hand.jpg");

  const COLOURS = Object.assign({R: "Red", B: "Blue", G: "Green", Y: "Yellow"}, words.colours || {});
  const CARDS = Object.assign({R: "red {n}", B: "blue {n}", G: "green {n}", Y: "yellow {n}", W: "Wild", S: "Skip"}, words.cards || {});

  function face(card) {
    if (card === "W" || card === "S") return {cls: "c-" + card, text: card, title: CARDS[card]};
    const m = /^([RBGY])(\d{1,2})$/.exec(card);
    if (m) return {cls: "c-" + m[1], text: m[2], title: fill(CARDS[m[1]], {n: m[2]})};
    return {cls: "c-S", text: card, title: card};
  }

  // ------------------------------------------------------------------ one picker for the page

  const picker = document.createElement("dialog");
  picker.className = "hp-picker";
  const title = document.createElement("p");
  title.className = "hp-title";
  const suits = document.createElement("div");
  suits.className = "hp-suits";
  const ranks = document.createElement("div");
  ranks.className = "hp-ranks";
  const specials = document.createElement("div");
  specials.className = "hp-specials";
  const actions = document.createElement("div");
  actions.className = "hp-actions";
  const removeButton = button(say("remove", "Remove"), "button danger hp-remove", () => { const done = picking; picker.close(); if (done) done.remove(); });
  const doneButton = button(say("done", "Done"), "button primary hp-done", () => picker.close());
  actions.append(removeButton, doneButton);
  picker.append(title, suits, ranks, specials, actions);
  document.body.appendChild(picker);
  let picking = null;   // {current, pick(card), remove(), adding}
  let suit = "R";       // kept between picks: a hand is often tapped in colour by colour
  picker.addEventListener("close", () => { picking = null; });

  function button(label, cls, onClick, pressed) {
    const b = document.createElement("button");
    b.type = "button";
    b.className = cls;
    b.textContent = label;
    if (pressed !== undefined) b.setAttribute("aria-pressed", pressed ? "true" : "false");
    b.addEventListener("click", onClick);
    return b;
  }

  function fillPicker() {
    const current = picking.current;
    const m = /^([RBGY])(\d{1,2})$/.exec(current || "");
    title.textContent = current
      ? say("change", "Change {card}", {card: face(current).title})
      : say("missed", "Add the cards the camera missed");
    suits.textContent = ""; ranks.textContent = ""; specials.textContent = "";
    Object.keys(COLOURS).forEach((s) => {
      suits.appendChild(button(COLOURS[s], "hp-pick c-" + s, () => { suit = s; fillPicker(); }, s === suit));
    });
    ranks.className = "hp-ranks c-" + suit;
    for (let n = 1; n <= 12; n++) {
      const card = suit + n;
      ranks.appendChild(button(String(n), "hp-pick", () => choose(card), !!m && card === current));
    }
    ["W", "S"].forEach((card) => {
      specials.appendChild(button(CARDS[card], "hp-pick", () => choose(card), card === current));
    });
    removeButton.hidden = !current;
  }

  // Adding keeps the picker open for the next card; changing a card closes it.
  function choose(card) {
    const now = picking;
    if (!now) return;
    now.pick(card);
    if (now.adding) fillPicker(); else picker.close();
  }

  function openPicker(how) {
    picking = how;
    const m = /^([RBGY])/.exec(how.current || "");
    if (m) suit = m[1];
    fillPicker();
    if (typeof picker.showModal === "function") picker.showModal(); else picker.setAttribute("open", "");
  }

  const pointsText = (n) => countedText("points", n, "{n} point", "{n} points");
  const cardsText = (n) => countedText("read", n, "{n} card read", "{n} cards read");

  // ------------------------------------------------------------------ one player's hand

  function setUp(box) {
    const form = box.closest("form") || document;
    const seat = box.dataset.player;
    const name = box.dataset.name;
    const api = box.dataset.api;
    const rules = box.dataset.rules;
    const $ = (what) => box.querySelector("[data-hand-" + what + "]");
    const file = $("file"), status = $("status"), result = $("result"), chipsBox = $("chips"), countLine = $("count");
    const use = $("use"), cancel = $("cancel");
    const field = (key) => form.querySelector('[name="p' + seat + "_" + key + '"]');
    let chips = [];       // {card, conf}
    let counted = null;   // the server's count of the chips as they stand
    let seq = 0;

    function tell(text) { status.textContent = text; }
    function withText(body) {
      return Object.assign({}, body, {pointsText: pointsText(body.points)});
    }

    function counterLabel(key) {
      const input = field(key);
      const label = input && input.getAttribute("aria-label");
      return label ? label.replace(name + " ", "") : key;
    }

    // The counters in the order the form shows them.
    function counterKeys() {
      const prefix = "p" + seat + "_";
      return Array.from(form.querySelectorAll('[name^="' + prefix + '"]'))
        .map((input) => input.name.slice(prefix.length))
        .filter((key) => Object.prototype.hasOwnProperty.call(counted.buckets, key));
    }

    function render() {
      chipsBox.textContent = "";
      chips.forEach((chip, k) => {
        const f = face(chip.card);
        const el = button(f.text, "hp-chip " + f.cls, () => openPicker({
          current: chip.card,
          pick: (card) => { chip.card = card; chip.conf = null; changed(); },
          remove: () => { chips.splice(chips.indexOf(chip), 1); changed(); },
        }));
        el.title = f.title;
        el.dataset.card = chip.card;
        el.setAttribute("aria-label", doubt(chip) ? say("unsure", "{card}, the camera is not sure of it: check it", {card: f.title}) : f.title);
        if (doubt(chip)) {
          el.classList.add("unsure");
          const mark = document.createElement("span");
          mark.className = "hp-doubt";
          mark.setAttribute("aria-hidden", "true");
          mark.textContent = "?";
          el.appendChild(mark);
        }
        el.dataset.index = String(k);
        chipsBox.appendChild(el);
      });
      const add = button("+", "hp-chip add", () => openPicker({
        current: null,
        adding: true,
        pick: (card) => { chips.push({card: card, conf: null}); changed(); },
      }));
      add.setAttribute("aria-label", say("add", "add a card to {name}'s hand", {name: name}));
      chipsBox.appendChild(add);
      showCount();
    }

    function showCount() {
      use.disabled = !counted;
      if (!counted) { countLine.textContent = say("counting", "Counting…"); return; }
      const parts = counterKeys().filter((k) => counted.buckets[k]).map((k) => counterLabel(k) + " × " + counted.buckets[k]);
      countLine.textContent = (parts.length ? parts.join(" · ") + " = " : "") + counted.pointsText + (counted.note ? ". " + counted.note : "");
    }

    // Every change asks the server again, so the counters and the points stay the engine's.
    function changed() {
      counted = null;
      render();
      const mine = ++seq;
      fetch(api, {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify({rules: rules, cards: chips.map((c) => c.card)})})
        .then((r) => r.json().then((b) => ({ok: r.ok, body: b})))
        .then(({ok, body}) => {
          if (mine !== seq) return;
          if (!ok) { tell(body.error || say("not_counted", "the cards could not be counted")); return; }
          counted = withText(body);
          showCount();
        })
        .catch(() => { if (mine === seq) tell(say("offline", "the server could not be reached: check the connection and try again")); });
    }

    function read(photo) {
      const mine = ++seq;
      counted = null;
      result.hidden = true;
      tell(say("reading", "Reading the cards…"));
      shrinkPhoto(photo).then((sent) => {
        if (mine !== seq) return null;
        const fd = new FormData();
        fd.append("photo", sent.blob, sent.name);
        fd.append("rules", rules);
        // The game's photos are read with the deck chosen for it (or the server's).
        if (box.dataset.game) fd.append("game", box.dataset.game);
        return fetch(api, {method: "POST", body: fd})
          .then((r) => r.json().catch(() => ({error: say("answered", "the server answered {status}", {status: r.status})})).then((b) => ({ok: r.ok, body: b})))
          .then(({ok, body}) => {
            if (mine !== seq) return;
            if (!ok) { tell(body.error || say("not_read", "the photo could not be read")); return; }
            chips = body.cards.map((c) => ({card: c.card, conf: c.confidence}));
            counted = withText(body);
            const doubtful = chips.filter(doubt).length;
            tell(cardsText(chips.length) + (doubtful ? "; " + countedText("doubtful", doubtful, "{n} marked ? may be misread", "{n} marked ? may be misread") : "") + ". " + say("check", "Check them, then use them."));
            result.hidden = false;
            render();
          });
      }).catch(() => { if (mine === seq) tell(say("not_sent", "the photo could not be sent: check the connection and try again")); });
    }

    file.addEventListener("change", () => { if (file.files[0]) read(file.files[0]); file.value = ""; });

    use.addEventListener("click", () => {
      if (!counted) return;
      // As typing would: the entry's sum (round.js) and the draft (draft.js) follow input events.
      Object.keys(counted.buckets).forEach((key) => {
        const input = field(key);
        if (!input) return;
        input.value = String(counted.buckets[key]);
        input.dispatchEvent(new Event("input", {bubbles: true}));
      });
      const typed = field("points");
      if (typed && typed.value !== "") {
        typed.value = "";  // a typed total next to the counters would be refused as a contradiction
        typed.dispatchEvent(new Event("input", {bubbles: true}));
      }
      result.hidden = true;
      tell(say("filled", "Counters filled from the photo: {points}. Change them with − and + if needed.", {points: counted.pointsText}));
    });

    cancel.addEventListener("click", () => { seq += 1; result.hidden = true; tell(""); });

    box.hidden = false;
  }

  boxes.forEach(setUp);
})();
