// Tap counters for the cards left in each hand. Every point value comes from the page (data-points, set by the
// server from the rules engine); this script only multiplies and adds so the total shows while tapping, fills in
// what the cards tapped already say, and checks what is cheap to check before anything is sent. The server
// judges the round again on Save and stays the authority.
(function () {
  "use strict";
  // The form's one-time token must come back with the typed values when the browser restores them after Back;
  // browsers restore a text control only when its value differs from the one in the page, so the token is
  // copied into an empty one here -- unless that one already holds a restored token, which must be kept.
  var kept = document.querySelector('input[name="once_kept"]');
  if (kept && !kept.value) kept.value = kept.getAttribute("data-once") || "";
  var form = document.querySelector("form.round-form");
  if (!form) return;
  var entries = Array.prototype.slice.call(form.querySelectorAll("[data-entry]"));
  function number(name, fallback) {
    var n = parseInt(form.getAttribute(name), 10);
    return isNaN(n) ? fallback : n;
  }
  var step = number("data-step", 5);
  var mostPoints = number("data-most-points", 999);
  var mostCards = number("data-most-cards", 11);
  var dealt = number("data-dealt", 10);
  var infer = form.getAttribute("data-infer") === "1";
  var inferDown = form.getAttribute("data-infer-down") === "1";
  var phaseChosen = form.getAttribute("data-phase-chosen") === "1";
  function say(key, values) {
    var text = form.getAttribute("data-msg-" + key) || key;
    Object.keys(values || {}).forEach(function (k) { text = text.split("{" + k + "}").join(String(values[k])); });
    return text;
  }

  // The controls set by hand (or by the referee's marks): the cards tapped never overrule them.
  var chosenBox = form.querySelector('input[name="chosen"]');
  function chosen() { return chosenBox && chosenBox.value ? chosenBox.value.split(" ") : []; }
  function isChosen(name) { return chosen().indexOf(name) >= 0; }
  function choose(name) {
    if (!chosenBox || isChosen(name)) return;
    chosenBox.value = chosen().concat([name]).join(" ");
  }

  function count(input) {
    var n = parseInt(input.value, 10);
    return isNaN(n) || n < 0 ? 0 : n;
  }
  function nameOf(entry) { return entry.querySelector("legend").textContent; }
  function radioOf(entry) { return entry.querySelector('input[name="went_out"]'); }
  function downOf(entry) { return entry.querySelector('.toggles input[type="checkbox"]'); }
  function typedOf(entry) { return entry.querySelector(".typed input"); }
  function isOut(entry) { var r = radioOf(entry); return !!(r && r.checked); }

  // What a player's row holds: the cards on the counters, their points, whether a Wild is among them, and
  // the typed total as typed.
  function hand(entry) {
    var h = { cards: 0, points: 0, wild: false, typed: "" };
    entry.querySelectorAll(".counter").forEach(function (c) {
      var n = count(c.querySelector("input"));
      h.cards += n;
      h.points += n * parseInt(c.getAttribute("data-points"), 10);
      if (n && c.hasAttribute("data-wild")) h.wild = true;
    });
    var typed = typedOf(entry);
    h.typed = typed ? typed.value.trim() : "";
    return h;
  }
  function empty(h) { return h.cards === 0 && h.typed === ""; }
  function cheapest(entry) {
    var least = Infinity;
    entry.querySelectorAll(".counter").forEach(function (c) {
      least = Math.min(least, parseInt(c.getAttribute("data-points"), 10));
    });
    return least;
  }
  function wildPoints(entry) {
    var c = entry.querySelector(".counter[data-wild]");
    return c ? parseInt(c.getAttribute("data-points"), 10) : Infinity;
  }

  // Who went out, when nobody chose: the one player left with nothing in hand once every other has something
  // (001: "When you have no cards left, the round ends for everyone"; every card left scores points).
  // The row "went out" was filled in for: its counters stay in view, since a tap there (the scorer meant
  // another player) simply undoes it.
  var filledOut = null;
  function inferOut() {
    filledOut = null;
    if (!infer || isChosen("went_out") || entries.length < 2) return;
    var bare = entries.filter(function (e) { return empty(hand(e)); });
    var out = bare.length === 1 ? bare[0] : null;
    filledOut = out;
    entries.forEach(function (e) {
      var r = radioOf(e);
      if (r) r.checked = e === out;
      filledIn(r, e === out);
    });
  }
  // A pill the page filled in is drawn dashed, so the scorer sees what to check rather than what was tapped.
  function filledIn(input, on) {
    var pill = input && input.closest(".pill");
    if (pill) pill.classList.toggle("filled-in", infer && !!on);
  }

  // "Laid down", where nobody chose and the phase needs no choosing: a hand that never went down is the ten
  // cards dealt, since each turn draws one card and discards one and nobody hits before laying down; and once a
  // phase is down a Wild fits any group on the table (001 "Hitting": "A Wild card can be added anywhere it
  // fits"), so nobody who laid down keeps one to the end. Fewer cards than were dealt, none of them a Wild,
  // means laid down; a typed total says so when it is too small for ten cards or for one Wild.
  function inferLaidDown(entry) {
    var down = downOf(entry);
    if (!down) return;
    if (isChosen(down.name)) { filledIn(down, false); return; }
    if (isOut(entry)) {
      if (!down.checked) down.setAttribute("data-by-out", "");
      down.checked = true;
      filledIn(down, true);
      return;
    }
    if (inferDown) {
      var h = hand(entry);
      var typed = /^\d+$/.test(h.typed) ? parseInt(h.typed, 10) : NaN;
      down.checked = h.cards > 0
        ? h.cards < dealt && !h.wild
        : typed > 0 && typed < Math.min(dealt * cheapest(entry), wildPoints(entry));
      filledIn(down, down.checked);
    } else if (down.hasAttribute("data-by-out")) {
      down.checked = false;  // ticked only because the player went out, which no longer holds
      filledIn(down, false);
    }
    down.removeAttribute("data-by-out");
  }

  // The faults of one row that can be seen without the server; ``saving`` adds what must be there by Save.
  function faults(entry, saving) {
    var found = [];
    var name = nameOf(entry);
    var h = hand(entry);
    // The hand of the player who went out is not asked for (nor sent): nothing to check there.
    if (!isOut(entry)) {
      if (h.typed !== "") {
        if (!/^\d+$/.test(h.typed)) {
          found.push(say("whole"));
        } else {
          var typed = parseInt(h.typed, 10);
          if (typed === 0) found.push(say("zero", { name: name }));
          else if (typed % step) found.push(say("step"));
          else if (typed > mostPoints) found.push(say("most"));
          if (h.cards && typed !== h.points) found.push(say("mismatch", { tapped: h.points, typed: typed }));
        }
      }
      if (h.cards > mostCards) found.push(say("cards"));
      if (saving && empty(h)) found.push(say("missing", { name: name }));
    }
    // 000: in Masters whoever laid down names the phase, the player who went out too.
    var phase = entry.querySelector(".phase select");
    var down = downOf(entry);
    if (saving && phaseChosen && phase && down && down.checked && !phase.value) found.push(say("phase", { name: name }));
    return found;
  }

  // A row's own messages replace what the server said about it once the row changes: those were about the
  // values as they were sent.
  function show(box, messages, fields) {
    if (!box) return;
    box.querySelectorAll("[data-live]").forEach(function (p) { p.remove(); });
    messages.forEach(function (text) {
      var p = document.createElement("p");
      p.className = "error";
      p.setAttribute("data-live", "");
      p.textContent = text;
      box.appendChild(p);
    });
    var bad = messages.length > 0 || box.querySelector("[data-sent]:not([hidden])") !== null;
    (fields || []).forEach(function (f) { f.setAttribute("aria-invalid", bad ? "true" : "false"); });
  }
  function forget(box) {
    if (box) box.querySelectorAll("[data-sent]").forEach(function (p) { p.hidden = true; });
  }
  function errorsOf(entry) { return entry.querySelector(".errors"); }
  // What the server said about a row stands until the row changes; the page adds nothing beside it.
  function answered(box) { return !!(box && box.querySelector("[data-sent]:not([hidden])")); }
  function check(entry, saving) {
    if (answered(errorsOf(entry))) return 0;
    var found = faults(entry, saving);
    var typed = typedOf(entry);
    show(errorsOf(entry), found, typed ? [typed] : []);
    return found.length;
  }
  function checkOut(saving) {
    var box = document.getElementById("went-out-errors");
    if (answered(box)) return 0;
    var none = !entries.some(isOut);
    show(box, saving && none ? [say("out")] : []);
    return saving && none ? 1 : 0;
  }

  function update(entry) {
    var h = hand(entry);
    entry.querySelectorAll(".counter").forEach(function (c) {
      var n = count(c.querySelector("input"));
      var shown = c.querySelector("[data-count]");
      if (shown) shown.textContent = String(n);
      c.classList.toggle("has", n > 0);
    });
    var out = entry.querySelector("[data-sum]");
    if (h.typed !== "") {
      var note = form.getAttribute("data-counters") || "({sum})";
      out.textContent = h.typed + (h.points && String(h.points) !== h.typed ? " " + note.replace("{sum}", String(h.points)) : "");
    } else {
      out.textContent = String(h.points);
    }
  }
  // The sticky bar sums up the round as it is tapped: each player's points, ★ for who went out.
  function summary() {
    var box = document.getElementById("round-summary");
    if (!box) return;
    box.textContent = entries.map(function (entry) {
      return nameOf(entry) + " " + (isOut(entry) ? "★" : entry.querySelector("[data-sum]").textContent);
    }).join(" · ");
  }
  function refresh() {
    inferOut();
    entries.forEach(function (entry) {
      inferLaidDown(entry);
      entry.classList.toggle("out", isOut(entry) && entry !== filledOut);
      update(entry);
    });
    summary();
  }

  entries.forEach(function (entry) {
    entry.querySelectorAll(".counter").forEach(function (c) {
      var input = c.querySelector("input");
      c.querySelector(".plus").addEventListener("click", function () {
        input.value = Math.min(count(input) + 1, mostCards);
        // As typing would: the entry's sum and the draft (draft.js) follow input events.
        input.dispatchEvent(new Event("input", { bubbles: true }));
      });
      c.querySelector(".minus").addEventListener("click", function () {
        input.value = Math.max(count(input) - 1, 0);
        input.dispatchEvent(new Event("input", { bubbles: true }));
      });
    });
  });

  // Once a Save was tried, what must be there by Save is checked live too, so a message goes as soon as its
  // fault does.
  var saving = false;
  function checkAll() {
    var total = checkOut(saving);
    entries.forEach(function (entry) { total += check(entry, saving); });
    return total;
  }
  function changed(e) {
    var target = e.target;
    // Only a person's tap makes a choice; draft.js replays restored values with events of its own.
    if (e.isTrusted) {
      if (target.name === "went_out") {
        choose("went_out");
        entries.forEach(function (e) { filledIn(radioOf(e), false); });
        forget(document.getElementById("went-out-errors"));
      } else if (target.type === "checkbox") {
        choose(target.name);
      }
      var entry = target.closest("[data-entry]");
      if (entry) forget(errorsOf(entry));
    }
    refresh();
    checkAll();
  }
  form.addEventListener("input", changed);
  form.addEventListener("change", changed);

  // Save and Preview: every fault the page can see, all at once, and nothing sent while there is one. draft.js
  // listens after this and leaves a stopped submit alone.
  form.addEventListener("submit", function (e) {
    saving = true;
    if (!checkAll()) return;
    e.preventDefault();
    e.stopImmediatePropagation();
    var first = form.querySelector("[data-live]");
    if (first) first.scrollIntoView({ block: "center" });
  });

  refresh();
})();
