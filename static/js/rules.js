// The "How to play" page: draws the worked examples (the engine's own games, embedded as
// <script id="rules-examples" type="application/json">) with the game board's renderers,
// so they look exactly like the board. The page reads fine without this: every example
// is also told card by card in the server's HTML.
import {
  controlsHtml,
  resultHtml,
  roundEndHtml,
  scoreTableHtml,
  tavernHtml,
} from "./board-render.js";

const root = document.getElementById("rules");
const data = JSON.parse(document.getElementById("rules-examples").textContent);

// What each part of a board draws; `ui` is the board's local state (an open overview).
const PARTS = {
  tavern: (game) => tavernHtml(game),
  controls: (game, ui) => controlsHtml(game, ui),
  "round-end": (game) => roundEndHtml(game),
  result: (game) => resultHtml(game),
  score: (game, ui) => scoreTableHtml(game, ui),
};

function gameOf(key) {
  // The shape the board's renderers expect: no clock, no chat, no moves to send.
  const board = data.boards[key];
  return {
    id: 0, players: data.players, view: board.view, watching: board.watching,
    outcome: board.outcome, clock: { away: {} }, recent: [], chat: [],
  };
}

function draw(element) {
  const game = gameOf(element.dataset.board);
  const ui = element.ui;
  element.innerHTML = element.dataset.parts.split(" ").map((part) => PARTS[part](game, ui)).join("");
}

const elements = [...document.querySelectorAll("[data-board]")];
for (const element of elements) {
  element.ui = { overview: null, pinned: false, pending: null, chooser: null, connection: "open" };
  // The buttons of a drawn turn are a picture here: nothing to click, nothing to focus.
  if (element.hasAttribute("data-inert")) element.inert = true;
  draw(element);
  element.dataset.drawn = "true";
}

// The score table's overview windows, as on the board: a mouse opens one while it hovers
// its button; a click or tap pins it open, and a second one (or a click on it) closes it.
function setOverview(element, id, pinned = false) {
  const ui = element.ui;
  if (ui.overview === id && ui.pinned === pinned) return;
  ui.overview = id;
  ui.pinned = Boolean(id) && pinned;
  draw(element);
}

for (const element of elements) {
  if (element.inert) continue;
  element.addEventListener("click", (event) => {
    if (event.target.closest(".overview")) return setOverview(element, null);
    const trigger = event.target.closest("[data-overview]");
    if (!trigger) return;
    const id = trigger.dataset.overview;
    const { overview, pinned } = element.ui;
    setOverview(element, overview === id && pinned ? null : id, true);
    element.querySelector(`[data-overview="${id}"]`)?.focus();
  });
  element.addEventListener("pointerover", (event) => {
    if (event.pointerType !== "mouse" || element.ui.pinned) return;
    const trigger = event.target.closest("[data-overview]");
    if (trigger) setOverview(element, trigger.dataset.overview);
  });
  element.addEventListener("pointerout", (event) => {
    if (event.pointerType !== "mouse" || element.ui.pinned) return;
    const from = event.target.closest("[data-overview], .overview");
    const to = event.relatedTarget?.closest?.("[data-overview], .overview");
    if (from && !to) setOverview(element, null);
  });
}

document.addEventListener("keydown", (event) => {
  if (event.key === "Escape") for (const element of elements) setOverview(element, null);
});

root.dataset.drawn = "true";
