// Checkup's own script: shows the sentence of a form's request that htmx sent and the
// server refused, inside the form. htmx swaps only successes (and the 413/422 a form
// answers with its errors), so a 409 or 400 would leave the form as it was, saying
// nothing. The server answers htmx with the sentence as plain text; anything else (a
// proxy's page) gets a sentence of ours. Polls are left alone: they try again by
// themselves, and a sentence there would come and go every two seconds.
(function () {
  "use strict";
  var longest = 400;

  function formOf(elt) {
    return elt && elt.closest ? elt.closest("form") : null;
  }

  function show(elt, text) {
    var form = formOf(elt);
    if (!form || !form.isConnected) {
      return; // not a form's request, or swapped away meanwhile
    }
    var box = form.querySelector(".request-error");
    if (!box) {
      box = document.createElement("p");
      box.className = "request-error";
      box.setAttribute("role", "alert");
      box.setAttribute("data-testid", "request-error");
      form.appendChild(box);
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
    var form = formOf(e.detail.elt);
    var box = form && form.querySelector(".request-error");
    if (box) {
      box.remove();
    }
  });
})();
