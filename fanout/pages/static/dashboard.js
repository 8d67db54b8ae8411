// Fanout's dashboard: small enhancements over pages that work without them.
// - Copy buttons (data-copy="ID of the field"), hidden until this script shows them.
// - A region that follows what it shows (data-follow="milliseconds"): the page is fetched
//   again and the region replaced, until the new page no longer asks to be followed.
(function () {
  "use strict";

  function copy(button) {
    var field = document.getElementById(button.getAttribute("data-copy"));
    var said = document.querySelector('[data-copied-for="' + field.id + '"]');
    function done(words) { if (said) { said.textContent = words; } }
    field.select();
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(field.value).then(
        function () { done("Copied."); },
        function () { done("Select the text and copy it."); });
    } else {
      done(document.execCommand && document.execCommand("copy") ? "Copied." : "Select the text and copy it.");
    }
  }

  function follow(region) {
    var every = parseInt(region.getAttribute("data-follow"), 10) || 2000;
    setTimeout(function () {
      fetch(window.location.href, {credentials: "same-origin", cache: "no-store"})
        .then(function (answer) {
          if (!answer.ok || answer.redirected) { throw new Error("stopped"); }
          return answer.text();
        })
        .then(function (text) {
          var fresh = new DOMParser().parseFromString(text, "text/html").getElementById(region.id);
          if (!fresh) { return; }
          region.replaceWith(fresh);
          if (fresh.hasAttribute("data-follow")) { follow(fresh); }
        })
        .catch(function () { /* the page still shows its last state; reloading shows the next */ });
    }, every);
  }

  document.addEventListener("DOMContentLoaded", function () {
    Array.prototype.forEach.call(document.querySelectorAll("button[data-copy]"), function (button) {
      button.hidden = false;
      button.addEventListener("click", function () { copy(button); });
    });
    var region = document.querySelector("[data-follow]");
    if (region && region.id) { follow(region); }
  });
}());
