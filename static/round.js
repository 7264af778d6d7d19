// Tap counters for the cards left in each hand. Every point value comes from the page (data-points, set by the
// server from the rules engine); this script only multiplies and adds so the total shows while tapping.
(function () {
  "use strict";
  // The form's one-time token must come back with the typed values when the browser restores them after Back;
  // browsers restore a text control only when its value differs from the one in the page, so the token is
  // copied into an empty one here -- unless that one already holds a restored token, which must be kept.
  var kept = document.querySelector('input[name="once_kept"]');
  if (kept && !kept.value) kept.value = kept.getAttribute("data-once") || "";
  function count(input) {
    var n = parseInt(input.value, 10);
    return isNaN(n) || n < 0 ? 0 : n;
  }
  function update(entry) {
    var sum = 0;
    entry.querySelectorAll(".counter").forEach(function (c) {
      var n = count(c.querySelector("input"));
      sum += n * parseInt(c.getAttribute("data-points"), 10);
      var shown = c.querySelector("[data-count]");
      if (shown) shown.textContent = String(n);
      c.classList.toggle("has", n > 0);
    });
    var typed = entry.querySelector(".typed input");
    var out = entry.querySelector("[data-sum]");
    if (typed && typed.value !== "") {
      var form = entry.closest("form");
      var note = (form && form.getAttribute("data-counters")) || "({sum})";
      out.textContent = typed.value + (sum && String(sum) !== typed.value ? " " + note.replace("{sum}", String(sum)) : "");
    } else {
      out.textContent = String(sum);
    }
    summary();
  }
  // The sticky bar sums up the round as it is tapped: each player's points, ★ for who went out.
  function summary() {
    var box = document.getElementById("round-summary");
    if (!box) return;
    var parts = [];
    document.querySelectorAll("[data-entry]").forEach(function (entry) {
      var name = entry.querySelector("legend").textContent;
      var radio = entry.querySelector('input[name="went_out"]');
      parts.push(name + " " + (radio && radio.checked ? "★" : entry.querySelector("[data-sum]").textContent));
    });
    box.textContent = parts.join(" · ");
  }
  function markOut() {
    document.querySelectorAll("[data-entry]").forEach(function (entry) {
      var radio = entry.querySelector('input[name="went_out"]');
      var out = radio && radio.checked;
      entry.classList.toggle("out", !!out);
      if (out) {
        var down = entry.querySelector('.toggles input[type="checkbox"]');
        if (down) down.checked = true;
      }
    });
  }
  document.querySelectorAll("[data-entry]").forEach(function (entry) {
    entry.querySelectorAll(".counter").forEach(function (c) {
      var input = c.querySelector("input");
      c.querySelector(".plus").addEventListener("click", function () {
        input.value = Math.min(count(input) + 1, 11);
        // As typing would: the entry's sum and the draft (draft.js) follow input events.
        input.dispatchEvent(new Event("input", { bubbles: true }));
      });
      c.querySelector(".minus").addEventListener("click", function () {
        input.value = Math.max(count(input) - 1, 0);
        input.dispatchEvent(new Event("input", { bubbles: true }));
      });
    });
    entry.addEventListener("input", function () { update(entry); });
    update(entry);
  });
  document.querySelectorAll('input[name="went_out"]').forEach(function (r) {
    r.addEventListener("change", function () { markOut(); summary(); });
  });
  markOut();
})();
