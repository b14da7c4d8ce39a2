// The player's seed for the dice (docs/fairness.md): 32 random hex digits from the
// browser's own randomness, never the server's, unless the player typed one.
export function randomSeed() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

// A form sent with an empty seed field sends a random seed instead (also the forms the
// lobby redraws after the page loaded: one listener on the document).
export function fillSeeds() {
  document.addEventListener("submit", (event) => {
    for (const input of event.target.querySelectorAll?.("input[data-client-seed]") ?? []) {
      if (!input.value) input.value = randomSeed();
    }
  }, true);
}
