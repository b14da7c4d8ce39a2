// The game's words in the page's language, read once from the JSON the server puts in
// <script type="application/json" id="words"> (games/words_js.py). Every text the board,
// the replay and the title show comes from here. (Without a document, as under node's
// unit tests, there are no words unless the test gives a document holding them.)
const source = typeof document === "undefined" ? null : document.getElementById("words");
export const WORDS = source ? JSON.parse(source.textContent) : {};
export const NATIONS = WORDS.nations ?? {};
export const ACTIONS = WORDS.actions ?? {};
export const DIRECTIONS = WORDS.directions ?? {};

const HTML_ESCAPES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
export const esc = (value) => String(value ?? "").replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]);

// A player's name as HTML: cut short with an ellipsis where it does not fit (site.css,
// .player-name), the whole name in its title. Wrap it in raw() to put it into a sentence that html builds.
export const nameHtml = (name) => `<span class="player-name" title="${esc(name)}">${esc(name)}</span>`;

// The tag after a program's name (the game JSON's `bots`): "computer · Captain" for a
// computer opponent's level, "bot" for a bot account; "" for a person.
export const botMark = (level) => (level ? ` <span class="tag bot">${esc(WORDS.bots?.[level] ?? level)}</span>` : "");

const pluralRules = new Intl.PluralRules(WORDS.language || "en");

// The template at a dotted key; a count ({n}) picks the form of its number.
function template(key, params) {
  let entry = key.split(".").reduce((node, part) => node?.[part], WORDS);
  if (entry && typeof entry === "object") entry = entry[pluralRules.select(params.n ?? 0)] ?? entry.other;
  return typeof entry === "string" ? entry : key; // a missing word shows its key, not a crash
}

function fill(text, params, value) {
  return text.replace(/\{(\w+)\}/g, (whole, name) => (name in params ? value(params[name]) : whole));
}

// The text at `key` with its {placeholders} filled in: plain text, to be escaped for HTML.
export function t(key, params = {}) {
  return fill(template(key, params), params, String);
}

// A value the html function below puts in as it is, because it is HTML already.
export const raw = (markup) => ({ html: markup });

// The text at `key` as HTML: the words and every value escaped, but those wrapped in raw().
export function html(key, params = {}) {
  return fill(esc(template(key, params)), params, (v) => (v && v.html !== undefined ? v.html : esc(v)));
}

// A moment (ISO text) in the page's language and the reader's time zone (the player's
// own, from <body data-time-zone>; a visitor's browser's), with the zone's abbreviation.
const MOMENT_FIELDS = { year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit", timeZoneName: "short" };
let momentFormat;
export function moment(iso) {
  if (!momentFormat) {
    const timeZone = (typeof document === "undefined" ? undefined : document.body?.dataset.timeZone) || undefined;
    try {
      momentFormat = new Intl.DateTimeFormat(WORDS.language || "en", { ...MOMENT_FIELDS, timeZone });
    } catch (error) {
      momentFormat = new Intl.DateTimeFormat(WORDS.language || "en", MOMENT_FIELDS); // an unknown zone
    }
  }
  return momentFormat.format(new Date(iso));
}
