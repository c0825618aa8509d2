// Keyboard shortcuts of the conversation page, so that labelling forty conversations
// takes minutes: a letter pressed outside a text field, without Ctrl, Alt or Cmd,
// clicks the element of the page whose data-shortcut is that letter (f: failed,
// s: succeeded, n: next in the list). The elements are looked up at each key press,
// since htmx swaps the label's buttons for new ones.
(function () {
  "use strict";
  document.addEventListener("keydown", function (e) {
    if (e.defaultPrevented || e.repeat || e.ctrlKey || e.metaKey || e.altKey || e.isComposing) {
      return;
    }
    var t = e.target;
    if (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName))) {
      return;
    }
    if (!/^[a-z]$/.test(e.key)) {
      return;
    }
    var el = document.querySelector('[data-shortcut="' + e.key + '"]');
    if (el) {
      e.preventDefault();
      el.click();
    }
  });
})();
