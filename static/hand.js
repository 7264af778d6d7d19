// Count the cards left in a hand from a photo, in the round form: the camera reads the cards (POST /api/hand),
// the player corrects them with a tap, and "Use these cards" fills that player's counters. Which counter a card
// goes on and the points come from the server's answer (the engine's): this script decides no rule.
(function () {
  "use strict";
  const boxes = document.querySelectorAll("[data-hand-photo]");
  if (!boxes.length || !window.fetch || !window.FormData) return;
  // Below this confidence (detector score x classifier probability) a card is marked "?" for the player to
  // check: the referee page marks its cards the same way.
  const UNSURE = 0.5;
  // A phone photo is shrunk before it is sent, as on the referee page: the camera reads the cards as well from
  // this size, and a few hundred kilobytes cross a busy Wi-Fi where several megabytes stall.
  const LONG_SIDE = 1600;
  const QUALITY = 0.85;

  // The photo as it will be sent: upright by its EXIF orientation and shrunk to LONG_SIDE, or the file itself
  // when it is small already or the browser cannot do it.
  function shrinkPhoto(file) {
    const original = {blob: file, name: file.name || "hand.jpg"};
    if (typeof createImageBitmap !== "function") return Promise.resolve(original);
    return createImageBitmap(file, {imageOrientation: "from-image"}).then((bitmap) => {
      const scale = LONG_SIDE / Math.max(bitmap.width, bitmap.height);
      if (!(scale < 1)) { bitmap.close(); return original; }
      const canvas = document.createElement("canvas");
      canvas.width = Math.round(bitmap.width * scale);
      canvas.height = Math.round(bitmap.height * scale);
      const ctx = canvas.getContext("2d");
      ctx.imageSmoothingQuality = "high";
      ctx.drawImage(bitmap, 0, 0, canvas.width, canvas.height);
      bitmap.close();
      return new Promise((resolve) => canvas.toBlob(resolve, "image/jpeg", QUALITY)).then((blob) => {
        if (!blob || blob.size >= file.size) return original;
        return {blob: blob, name: original.name.replace(/\.[^.]*$/, "") + ".jpg"};
      });
    }).catch(() => original);
  }

  const COLOURS = {R: "Red", B: "Blue", G: "Green", Y: "Yellow"};

  function face(card) {
    if (card === "W") return {cls: "c-W", text: "W", title: "Wild"};
    if (card === "S") return {cls: "c-S", text: "S", title: "Skip"};
    const m = /^([RBGY])(\d{1,2})$/.exec(card);
    if (m) return {cls: "c-" + m[1], text: m[2], title: COLOURS[m[1]].toLowerCase() + " " + m[2]};
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
  const removeButton = button("Remove", "button danger hp-remove", () => { const done = picking; picker.close(); if (done) done.remove(); });
  const doneButton = button("Done", "button primary hp-done", () => picker.close());
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
    title.textContent = current ? "Change " + face(current).title : "Add the cards the camera missed";
    suits.textContent = ""; ranks.textContent = ""; specials.textContent = "";
    Object.keys(COLOURS).forEach((s) => {
      suits.appendChild(button(COLOURS[s], "hp-pick c-" + s, () => { suit = s; fillPicker(); }, s === suit));
    });
    ranks.className = "hp-ranks c-" + suit;
    for (let n = 1; n <= 12; n++) {
      const card = suit + n;
      ranks.appendChild(button(String(n), "hp-pick", () => choose(card), !!m && card === current));
    }
    [["W", "Wild"], ["S", "Skip"]].forEach(([card, label]) => {
      specials.appendChild(button(label, "hp-pick", () => choose(card), card === current));
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

    function say(text) { status.textContent = text; }

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
        const doubt = chip.conf !== null && chip.conf !== undefined && chip.conf < UNSURE;
        el.setAttribute("aria-label", f.title + (doubt ? ", may be misread" : ""));
        if (doubt) el.classList.add("unsure");
        el.dataset.index = String(k);
        chipsBox.appendChild(el);
      });
      const add = button("+", "hp-chip add", () => openPicker({
        current: null,
        adding: true,
        pick: (card) => { chips.push({card: card, conf: null}); changed(); },
      }));
      add.setAttribute("aria-label", "add a card to " + name + "'s hand");
      chipsBox.appendChild(add);
      showCount();
    }

    function showCount() {
      use.disabled = !counted;
      if (!counted) { countLine.textContent = "Counting…"; return; }
      const parts = counterKeys().filter((k) => counted.buckets[k]).map((k) => counterLabel(k) + " × " + counted.buckets[k]);
      countLine.textContent = (parts.length ? parts.join(" · ") + " = " : "") + counted.points + " points" + (counted.note ? ". " + counted.note : "");
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
          if (!ok) { say(body.error || "the cards could not be counted"); return; }
          counted = body;
          showCount();
        })
        .catch(() => { if (mine === seq) say("the server could not be reached: check the connection and try again"); });
    }

    function read(photo) {
      const mine = ++seq;
      counted = null;
      result.hidden = true;
      say("Reading the cards…");
      shrinkPhoto(photo).then((sent) => {
        if (mine !== seq) return null;
        const fd = new FormData();
        fd.append("photo", sent.blob, sent.name);
        fd.append("rules", rules);
        return fetch(api, {method: "POST", body: fd})
          .then((r) => r.json().catch(() => ({error: "the server answered " + r.status})).then((b) => ({ok: r.ok, body: b})))
          .then(({ok, body}) => {
            if (mine !== seq) return;
            if (!ok) { say(body.error || "the photo could not be read"); return; }
            chips = body.cards.map((c) => ({card: c.card, conf: c.confidence}));
            counted = body;
            const doubtful = chips.filter((c) => c.conf < UNSURE).length;
            say(chips.length + " card" + (chips.length === 1 ? "" : "s") + " read" + (doubtful ? "; " + doubtful + " marked ? may be misread" : "") + ". Check them, then use them.");
            result.hidden = false;
            render();
          });
      }).catch(() => { if (mine === seq) say("the photo could not be sent: check the connection and try again"); });
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
      say("Counters filled from the photo: " + counted.points + " points. Change them with − and + if needed.");
    });

    cancel.addEventListener("click", () => { seq += 1; result.hidden = true; say(""); });

    box.hidden = false;
  }

  boxes.forEach(setUp);
})();
