// Redrawing a part of a page in place: `element` is morphed into its new HTML
// (static/js/vendor/idiomorph.js), so what did not change stays the same element, and
// with it the keyboard focus, the caret and open details. What the player typed, ticked
// or chose in a field is theirs: the new HTML never overwrites it (hidden fields, which
// the player does not edit, follow the server).
import { Idiomorph } from "./vendor/idiomorph.js";

const OWN = { value: true, checked: true, selected: true };

function typedByThePlayer(attribute, element) {
  if (!OWN[attribute]) return false;
  if (element.matches("option")) return true;
  return element.matches("textarea, select, input:not([type=hidden])");
}

// `content`: an HTML string or an element; "innerHTML" morphs the children, "outerHTML"
// the element itself too.
export function morph(element, content, morphStyle = "innerHTML") {
  Idiomorph.morph(element, content, {
    morphStyle,
    callbacks: { beforeAttributeUpdated: (attribute, node) => !typedByThePlayer(attribute, node) },
  });
}
