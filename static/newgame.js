// The first dealer is chosen by name: the list follows the names as they are typed.
(function () {
  "use strict";
  var form = document.querySelector("form.new-game");
  if (!form) return;
  var dealer = form.querySelector('select[name="first_dealer"]');
  var names = form.querySelectorAll('input[name^="names-"]');
  function update() {
    names.forEach(function (input, i) {
      var option = dealer.options[i];
      if (option) option.textContent = input.value.trim() || "Player " + (i + 1);
    });
  }
  names.forEach(function (input) { input.addEventListener("input", update); });
  update();
})();
