// What the renderers' unit tests draw: the site's real words (games/words_js.py, in
// English) and real views of the engine (games/rules/view.py), both written by
// tests/test_js_units.py, which runs these tests; words.js reads its words from the
// page, so a stand-in document holds them before the renderers are imported.
import { readFileSync } from "node:fs";

function load(variable) {
  const path = process.env[variable];
  if (!path) throw new Error(`${variable} is not set: run these tests through pytest tests/test_js_units.py`);
  return JSON.parse(readFileSync(path, "utf8"));
}

export const WORDS = load("SHANGHAIEN_WORDS");
export const BOARDS = load("SHANGHAIEN_BOARDS");

globalThis.document = {
  getElementById: (id) => (id === "words" ? { textContent: JSON.stringify(WORDS) } : null),
  body: { dataset: {} },
};

export const render = await import("../../static/js/board-render.js");

// A game as the board gets it (docs/protocol.md), around one of the views.
export function gameOf(name, changes = {}) {
  const view = structuredClone(BOARDS[name]);
  return {
    id: 7, version: 12, status: view.status, rated: true, ratings: null, watching: false,
    players: { me: "anna", opponent: "bernd" }, bots: { me: null, opponent: null }, guest: false,
    outcome: view.status === "finished" ? "Game over." : null, recent: [], since: null,
    clock: { deadline: null, extended: false, can_extend: false, away: {} },
    rematch: null, chat: [], fairness: null, view, ...changes,
  };
}

export const UI = { pending: null, chooser: null, overview: null, connection: "open" };

// Every <button …> tag of `html` with the attribute `name` (="value" if given).
export function buttons(html, name, value) {
  const tags = html.match(/<button\b[^>]*>/g) ?? [];
  const attribute = value === undefined ? new RegExp(`\\s${name}(=|\\s|>)`) : new RegExp(`\\s${name}="${value}"`);
  return tags.filter((tag) => attribute.test(tag));
}

export const enabled = (tag) => !/\sdisabled(\s|>|=)/.test(tag);
