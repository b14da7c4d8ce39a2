// The home page: draws a real position of the game (the engine's own, embedded as
// <script id="home-board-data" type="application/json">) with the game board's renderers,
// so a visitor sees the board exactly as they will play it. The page reads fine without
// this: the figure's caption tells the position in words.
import { controlsHtml, scoreTableHtml, tavernHtml } from "./board-render.js";

const element = document.getElementById("home-board");
const data = JSON.parse(document.getElementById("home-board-data").textContent);

// The shape the board's renderers expect: no clock, no chat, no moves to send.
const game = {
  id: 0, players: data.players, view: data.view, watching: data.watching,
  outcome: data.outcome, clock: { away: {} }, recent: [], chat: [],
};
const ui = { overview: null, pinned: false, pending: null, chooser: null, connection: "open" };

// A picture of a turn: nothing on it to click or focus (the element is inert).
element.inert = true;
element.innerHTML = [
  tavernHtml(game, { tricks: true }),
  controlsHtml(game, ui),
  scoreTableHtml(game, ui),
].join("");
element.dataset.drawn = "true";
