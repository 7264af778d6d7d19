// The first dealer is chosen by name: the list follows the names as they are typed.
(function () {
  "use strict";
  var form = document.querySelector("form.new-game");
  if (!form) return;
  var dealer = form.querySelector('select[name="first_dealer"]');
  var names = form.querySelectorAll('input[name^="names-"]');
  // "Player {n}" in the page's language, for a seat with no name typed yet.
  var unnamed = dealer.getAttribute("data-player") || "{n}";
  function update() {
    names.forEach(function (input, i) {
      var option = dealer.options[i];
      if (option) option.textContent = input.value.trim() || unnamed.replace("{n}", String(i + 1));
    });
  }
  names.forEach(function (input) { input.addEventListener("input", update); });
  update();
})();
