// Checkup's own script: shows the sentence of a request htmx sent and the server refused,
// beside the control that sent it. htmx swaps only successes (and the 413/422 a form
// answers with its errors), so a 409 or 400 would leave the form as it was, saying
// nothing. The server answers htmx with the sentence as plain text; anything else (a
// proxy's page) gets a sentence of ours.
(function () {
  "use strict";
  var longest = 400;

  // existing is the sentence shown for elt: inside a form, after any other element.
  function existing(elt) {
    var box = elt.tagName === "FORM" ? elt.querySelector(".request-error") : elt.nextElementSibling;
    return box && box.classList.contains("request-error") ? box : null;
  }

  function show(elt, text) {
    if (!elt || !elt.isConnected) {
      return; // swapped away meanwhile: nothing left to explain
    }
    var box = existing(elt);
    if (!box) {
      box = document.createElement("p");
      box.className = "request-error";
      box.setAttribute("role", "alert");
      box.setAttribute("data-testid", "request-error");
      if (elt.tagName === "FORM") {
        elt.appendChild(box);
      } else {
        elt.insertAdjacentElement("afterend", box);
      }
    }
    box.textContent = text;
  }

  document.addEventListener("htmx:responseError", function (e) {
    var xhr = e.detail.xhr;
    var plain = (xhr.getResponseHeader("Content-Type") || "").indexOf("text/plain") === 0;
    var text = plain ? xhr.responseText.trim() : "";
    if (text === "" || text.length > longest) {
      text = "That did not work (" + xhr.status + "). Reload the page, and try again.";
    }
    show(e.detail.elt, text);
  });
  document.addEventListener("htmx:sendError", function (e) {
    show(e.detail.elt, "Checkup could not be reached. Check your connection, and try again.");
  });
  document.addEventListener("htmx:beforeRequest", function (e) {
    var box = e.detail.elt && existing(e.detail.elt);
    if (box) {
      box.remove();
    }
  });
})();
