// Live updates for the server-rendered pages: the page title counts the games waiting
// for you and the lobby refreshes itself. (The game board has its own socket: board.js.)
import { Backoff, STABLE_MS } from "./backoff.js";
import { morph } from "./morph.js";
import { keepCurrent } from "./push.js";
import { fillSeeds } from "./seeds.js";
import { t } from "./words.js";

function socketUrl(path) {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${location.host}${path}`;
}

// Close codes after which another attempt would fare no better: not signed in (4401), no
// such game (4404), too many sockets of the account open already (4429, after an error
// frame saying so). The status is then "refused", and nothing retries.
const REFUSED = [4401, 4404, 4429];

// Keeps a socket open, reconnecting after a random wait under a bound that doubles with
// each failed attempt (backoff.js). The bound starts afresh only once a connection has
// stayed open a while: a server that accepts and drops at once is not hammered. Whoever
// uses the socket resynchronises on "open" (the game socket sends its state first).
export function keepOpen(path, onMessage, onStatus = () => {}) {
  const backoff = new Backoff();
  let stable = null;
  const open = () => {
    const ws = new WebSocket(socketUrl(path));
    ws.addEventListener("open", () => {
      stable = setTimeout(() => backoff.reset(), STABLE_MS);
      onStatus("open", ws);
    });
    ws.addEventListener("message", (event) => onMessage(JSON.parse(event.data), ws));
    ws.addEventListener("close", (event) => {
      clearTimeout(stable);
      if (REFUSED.includes(event.code)) {
        onStatus("refused", ws); // will never succeed
        return;
      }
      onStatus("closed", ws);
      setTimeout(open, backoff.next());
    });
  };
  open();
}

// The title's "(2) Your turn · " in front of the page's own title, as the server wrote it.
const escapeRegExp = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const waitingPrefix = new RegExp(
  "^" + escapeRegExp(t("title.waiting", { count: "\u0000" })).replace("\u0000", "\\d+"),
);
const baseTitle = document.title.replace(waitingPrefix, "");

// The header's "Next game" (templates/games/_next_game.html): shown while a game waits,
// with the count.
function showNextGame(count) {
  const link = document.getElementById("next-game");
  if (!link) return;
  link.hidden = count < 1;
  link.dataset.waiting = String(count);
  link.setAttribute("aria-label", t("next.label", { n: count }));
  const shown = link.querySelector(".count");
  if (shown) shown.textContent = String(count);
}

// The installed app's badge, where the platform has one (the Badging API).
function showBadge(count) {
  if (!("setAppBadge" in navigator)) return;
  (count > 0 ? navigator.setAppBadge(count) : navigator.clearAppBadge()).catch(() => {});
}

// The games waiting for the player: the title, the header's button and the app's badge;
// a board hears of it too ("waiting-games": the count and the waiting games' ids, when
// the lobby socket said which).
function showWaiting(count, ids = null) {
  document.title = count > 0 ? t("title.waiting", { count }) + baseTitle : baseTitle;
  showNextGame(count);
  showBadge(count);
  document.dispatchEvent(new CustomEvent("waiting-games", { detail: { count, ids } }));
}

// The lobby is morphed into the fresh one (morph.js): what the player is typing or has
// ticked, and the focus with its caret, stay as they were.
async function refreshLobby() {
  const lobby = document.getElementById("lobby");
  if (!lobby) return;
  const response = await fetch(location.href, { headers: { "X-Requested-With": "fetch" } });
  if (!response.ok) return;
  const page = new DOMParser().parseFromString(await response.text(), "text/html");
  const fresh = page.getElementById("lobby");
  if (fresh) morph(lobby, fresh, "outerHTML");
}

// A page that changes while it is open (a tournament's: <div data-watch="tournament"
// data-watch-id="7" data-version="12">) asks the lobby socket to tell it, and on each
// newer version reads itself anew and morphs the part in, as the lobby does. Reloads
// never overlap: a change that comes during one is read by one more after it.
const watched = document.querySelector("[data-watch][data-watch-id]");
let reloading = null;
let reloadAgain = false;
let opened = 0; // times the lobby socket opened

async function refreshWatched() {
  if (reloading) {
    reloadAgain = true;
    return;
  }
  reloading = (async () => {
    do {
      reloadAgain = false;
      const element = document.querySelector("[data-watch][data-watch-id]");
      const response = await fetch(location.href, { headers: { "X-Requested-With": "fetch" } });
      if (!response.ok || !element) break;
      const page = new DOMParser().parseFromString(await response.text(), "text/html");
      const fresh = page.getElementById(element.id);
      if (fresh) morph(element, fresh, "outerHTML");
    } while (reloadAgain);
  })();
  try {
    await reloading;
  } finally {
    reloading = null;
  }
}

function watchedChanged(message) {
  const element = document.querySelector("[data-watch][data-watch-id]");
  if (!element || message.topic !== element.dataset.watch) return;
  if (String(message.id) !== element.dataset.watchId) return;
  if (Number(message.version) <= Number(element.dataset.version ?? -1)) return;
  refreshWatched().catch((error) => console.error("reload:", error));
}

if (document.body.dataset.user) {
  showBadge(Number(document.getElementById("next-game")?.dataset.waiting ?? 0));
  fillSeeds();
  keepOpen(
    "/ws/lobby/",
    (message) => {
      if ("your_turn" in message) showWaiting(message.your_turn, message.waiting ?? null);
      if (message.type === "games_changed" || message.type === "invitation") refreshLobby();
      if (message.type === "changed") watchedChanged(message);
    },
    (status, ws) => {
      if (status !== "open" || !watched) return;
      const id = Number(watched.dataset.watchId);
      ws.send(JSON.stringify({ type: "watch", topic: watched.dataset.watch, id }));
      // what changed while the socket was closed is read once it is back
      if (opened++ > 0) refreshWatched().catch((error) => console.error("reload:", error));
    },
  );
  // this browser's push subscription, if the player has one here, stays known to the server
  keepCurrent(document.body.dataset.pushKey).catch((error) => console.error("push:", error));
}
