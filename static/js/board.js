// The game board: renders the game JSON pushed over /ws/games/<id>/ and sends the
// player's clicks as commands (docs/protocol.md). Rendering lives in board-render.js.
import { keepOpen } from "./live.js";
import { morph } from "./morph.js";
import {
  chatHtml,
  controlsHtml,
  extrasHtml,
  nextGameHtml,
  pointsOverviewHtml,
  recentHtml,
  rematchHtml,
  reportDialogHtml,
  reportReasons,
  resultHtml,
  roundEndHtml,
  scoreTableHtml,
  showsRoundEnd,
  statusHtml,
  tavernHtml,
  totalHtml,
  trickPanelHtml,
} from "./board-render.js";
import { animateNews } from "./motion.js";
import { offerAfterMove } from "./push.js";
import { randomSeed } from "./seeds.js";
import { markNew, sinceHtml, sinceLine } from "./since.js";
import { botMark, esc, html, nameHtml, raw, t } from "./words.js";

const root = document.getElementById("board");
const initial = JSON.parse(document.getElementById("game-data").textContent);
// One live region for the whole visit (outside the board, which is redrawn): screen
// readers hear each change of turn and what the opponent did, once.
const announcer = document.getElementById("board-announcer");

const ui = {
  game: initial,
  connection: "connecting",
  socket: null,
  pending: null, // client_id of the command in flight
  chooser: null, // {card, half}: a trick half that needs a follow-up choice
  overview: null, // id of the open overview window
  trigger: null, // data-trigger of the button that opened it (the focus goes back there)
  pinned: false, // opened by a click or tap (stays) rather than by hover
  alert: "",
  offline: false, // the alert says the socket is down; it goes when the socket is back
  blocked: root.dataset.blocked === "true", // the player blocks the opponent
  commitment: root.dataset.commitment, // the server's for the player's next game (a rematch)
  announced: { version: initial.version, turn: initial.view.turn },
  reported: { game: false, messages: [] }, // the thanks shown where each report was made
  report: null, // what the open report dialog is about: {game} or {message}
  // where the opponent is (here at this game, online, last seen), as the server says it;
  // null where the board says nothing (a watcher, a computer opponent)
  presence: root.dataset.presenceState
    ? { state: root.dataset.presenceState, text: root.dataset.presenceText || "" }
    : null,
  nextGames: 0, // how many of the player's other games wait for their move (below)
};

// On the names' line, after the opponent's score, in the room left there (cut short
// rather than wrapped: the opponent coming and going never moves the board).
function presenceHtml(presence) {
  if (!presence) return "";
  return `<p class="opponent-presence" data-state="${esc(presence.state)}" title="${esc(presence.text)}">${presence.text ? `<span class="presence-dot" aria-hidden="true"></span>${esc(presence.text)}` : ""}</p>`;
}

// The games waiting for the player (the header's count, then the lobby socket's, live.js),
// less this one when it is among them: what the turn box offers to go on to.
const waiting = { count: Number(document.getElementById("next-game")?.dataset.waiting ?? 0), mine: !initial.watching && initial.view.turn === "me" };
function countOthers() {
  ui.nextGames = Math.max(0, waiting.count - (waiting.mine ? 1 : 0));
}
countOthers();
document.addEventListener("waiting-games", (event) => {
  const { count, ids } = event.detail;
  waiting.count = count;
  // the lobby socket names the waiting games; without their ids, this one counts as the board shows it
  waiting.mine = ids ? ids.includes(Number(root.dataset.gameId)) : !ui.game.watching && ui.game.view.turn === "me";
  countOthers();
  render();
});

// The board is redrawn by morphing it into its new HTML (morph.js): what stays the same
// stays in place, and with it the keyboard focus, the chat draft and the open details.
// Only a focused control the new board no longer has, or can no longer use, needs a new
// place for the focus.
function render() {
  const before = document.activeElement;
  const inside = Boolean(before && before !== root && root.contains(before));
  const inTurn = inside && Boolean(before.closest(".controls, .tavern-row"));
  const onBox = inside && before.matches(".controls");
  paint();
  const now = document.activeElement;
  if (inside && (onBox || !root.contains(now) || now.disabled)) nextStep(inTurn);
  announce();
}

// After a move the turn's controls lead on: the first usable one now (the captains or
// the dice after a roll), else their box, which keeps the place until the answer comes;
// elsewhere the board's heading.
function nextStep(inTurn) {
  const next = inTurn && root.querySelector(".tavern-row button:not([disabled]), .controls button:not([disabled])");
  (next || (inTurn && root.querySelector(".controls")) || root.querySelector(".board-head h1"))?.focus();
}

function announce() {
  const game = ui.game;
  const seen = ui.announced;
  if (game.version === seen.version) return;
  const view = game.view;
  const parts = [];
  const last = (game.recent || [])[0];
  if (last && last.by === "opponent" && !game.watching) parts.push(sinceLine(game, last));
  if (view.status === "finished") {
    if (game.outcome) parts.push(game.outcome);
  } else if (view.turn !== seen.turn || parts.length) {
    if (game.watching) parts.push(t("announce.their_turn", { name: game.players[view.turn] }));
    else parts.push(view.turn === "me" ? t("announce.your_turn") : t("announce.their_turn", { name: game.players.opponent }));
  }
  ui.announced = { version: game.version, turn: view.turn };
  if (parts.length && announcer) announcer.textContent = parts.join(" ");
}

function focusTrigger(key) {
  root.querySelector(`[data-trigger="${key}"]`)?.focus();
}

function paint() {
  const game = ui.game;
  const view = game.view;
  root.dataset.version = game.version;
  root.dataset.phase = view.phase;
  root.dataset.turn = view.turn ?? "none";
  root.dataset.status = view.status;
  root.dataset.pending = ui.pending ? "true" : "false";
  root.dataset.connection = ui.connection; // connecting, open, closed or refused
  const finished = view.status === "finished";
  // The turn first: the head (names, each with the game score), the tavern and beside it
  // (below it on a phone) the player's turn; notices come after them, so that nothing
  // appearing after a move shifts the board. Side panels follow (board.css places them).
  morph(root, `
    <header class="board-head">
      <div class="players">${totalHtml(game, "me", ui)}<h1 tabindex="-1">${html("status.heading", {
        me: raw(`<span class="me">${nameHtml(game.players.me)}${botMark(game.bots.me)}</span>`),
        opponent: raw(`<span class="opponent">${nameHtml(game.players.opponent)}${botMark(game.bots.opponent)}</span>`),
      })}</h1>${totalHtml(game, "opponent", ui)}${presenceHtml(ui.presence)}</div>
      ${pointsOverviewHtml(game, ui)}
    </header>
    <div class="board-play">
      <div class="board-main">
        ${finished ? "" : tavernHtml(game, { tricks: true })}
        ${resultHtml(game)}
        ${showsRoundEnd(view) ? roundEndHtml(game) : ""}
      </div>
      <div class="board-side">
        <div class="turn${finished ? " game-over" : ""}">
          ${finished ? "" : controlsHtml(game, ui)}
          <div class="status">${statusHtml(game, ui)}</div>
          ${finished ? rematchHtml(game, ui) : ""}
          ${finished && ui.nextGames > 0 ? `<p class="next-offer">${nextGameHtml(game, ui)}</p>` : ""}
          <p class="alert" role="alert" ${ui.alert ? "" : "hidden"}>${esc(ui.alert)}</p>
        </div>
        ${sinceHtml(game)}
        <div class="trick-panels">${trickPanelHtml(game, "me")}${trickPanelHtml(game, "opponent")}</div>
        ${scoreTableHtml(game, ui)}
      </div>
    </div>
    ${game.bots.me || game.bots.opponent ? "" : chatHtml(game, ui)}
    ${extrasHtml(game, ui)}
    ${recentHtml(game)}`);
  markNew(root, game);
  animateNews(root, game);
}

// -- talking to the server ---------------------------------------------------------------

function showAlert(text, offline = false) {
  ui.alert = text;
  ui.offline = offline;
}

// Whether the socket can take a message now; if not, the alert (`advice`) says what to do.
function connected(advice) {
  if (ui.socket && ui.socket.readyState === WebSocket.OPEN) return true;
  showAlert(advice, true);
  render();
  return false;
}

function send(command) {
  if (!connected(t("alerts.offline_move"))) return;
  const clientId = crypto.randomUUID();
  ui.pending = clientId;
  showAlert("");
  ui.chooser = null;
  ui.socket.send(JSON.stringify({
    type: "command", command, expected_version: ui.game.version, client_id: clientId,
  }));
  render();
}

function onMessage(message, socket) {
  if (message.type === "state") {
    if (message.version < ui.game.version) return; // an older push overtaken by a newer one
    ui.game = message.game;
    if (ui.chooser && ui.game.view.phase !== "placement") ui.chooser = null;
  } else if (message.type === "chat") {
    const chat = ui.game.chat || (ui.game.chat = []);
    if (!chat.some((m) => m.id === message.message.id)) chat.push(message.message);
  } else if (message.type === "presence") {
    if (ui.presence) ui.presence = { state: message.state, text: message.text };
  } else if (message.type === "chat_hidden") {
    ui.game.chat = (ui.game.chat || []).filter((m) => m.id !== message.id);
  } else if (message.type === "ack") {
    if (message.client_id !== ui.pending) return;
    ui.pending = null;
    offerAfterMove().catch(() => {}); // the one offer of notifications here, after a move
    if (message.version > ui.game.version) return; // the new state is on its way
  } else if (message.type === "error") {
    if (message.client_id && message.client_id === ui.pending) ui.pending = null;
    showAlert(message.message);
    if (message.code === "stale_version") socket.send(JSON.stringify({ type: "sync" }));
  }
  render();
}

function onStatus(status, socket) {
  ui.connection = status;
  ui.socket = status === "open" ? socket : null;
  if (status === "open" && ui.offline) showAlert("");
  if (status !== "open" && ui.pending) {
    // The answer may be lost; the state sent on reconnect shows whether the move landed.
    ui.pending = null;
  }
  render();
}

// Actions outside the rules (the clock, rematches, reports) go through the JSON API:
// the answer's body, and whether it was a success.
async function request(path, data = {}) {
  const token = document.cookie.split("; ").find((c) => c.startsWith("csrftoken="))?.split("=")[1];
  try {
    const response = await fetch(path, {
      method: "POST",
      headers: { "X-CSRFToken": token ?? "", "Content-Type": "application/json" },
      body: JSON.stringify(data),
    });
    return { ok: response.ok, body: await response.json() };
  } catch (error) {
    return { ok: false, body: {} }; // offline, or an answer that is not JSON
  }
}

// The same, telling a failure in the board's alert: the body, or null.
async function post(path, data = {}) {
  const { ok, body } = await request(path, data);
  if (!ok) {
    // a commitment used meanwhile: the answer shows the new one, for the next try
    if (body.error?.commitment) ui.commitment = body.error.commitment;
    showAlert(body.error?.message ?? t("alerts.failed"));
    render();
    return null;
  }
  return body;
}

// Blocking the opponent from the board: no more invitations or chat from them; the
// game itself goes on (docs/api.md, "Chat, reports, blocks").
async function toggleBlock() {
  const name = ui.game.players.opponent;
  if (!ui.blocked && !window.confirm(t("extras.block_question", { name }))) return;
  const path = ui.blocked ? `/api/blocks/${encodeURIComponent(name)}/remove/` : "/api/blocks/";
  const body = await post(path, ui.blocked ? {} : { username: name });
  if (!body) return;
  ui.blocked = !ui.blocked;
  showAlert(ui.blocked ? t("extras.blocked", { name }) : t("extras.unblocked", { name }));
  render();
}

// -- clicks ------------------------------------------------------------------------------

function legalFor(match) {
  return ui.game.view.legal.filter((c) => Object.entries(match).every(([k, v]) => c[k] === v));
}

function openOverview(id, pinned, key = id) {
  ui.overview = id;
  ui.pinned = pinned;
  ui.trigger = key;
  render();
  if (pinned) focusTrigger(key);
}

// Closing a window opened by a click, a tap or the keyboard gives the focus back to its
// button; one a hovering mouse opened, or a click elsewhere, leaves the focus alone.
function closeOverview({ refocus = true } = {}) {
  if (!ui.overview) return;
  const inside = root.querySelector(".overview:not([hidden])")?.contains(document.activeElement);
  const back = refocus && (ui.pinned || inside);
  ui.overview = null;
  ui.pinned = false;
  render();
  if (back) focusTrigger(ui.trigger);
}

// What a click on a button does, by the button's data attribute (the first of these it
// has); each handler gets the button's dataset.
const CLICKS = {
  overview: (data) => {
    if (ui.overview === data.overview && ui.pinned) closeOverview();
    else openOverview(data.overview, true, data.trigger);
  },
  reportGame: () => openReport({ game: Number(root.dataset.gameId) }),
  reportMessage: (data) => openReport({ message: Number(data.reportMessage) }),
  block: () => toggleBlock(),
  extend: () => post(`/api/games/${root.dataset.gameId}/extend/`),
  rematch: () => post(`/api/games/${root.dataset.gameId}/rematch/`, { client_seed: randomSeed(), commitment: ui.commitment }),
  acceptRematch: (data) => {
    const seeds = { client_seed: randomSeed(), commitment: ui.game.rematch?.commitment ?? "" };
    post(`/api/invitations/${data.acceptRematch}/accept/`, seeds).then((body) => {
      if (body) window.location.assign(`/games/${body.game}/`);
    });
  },
  action: (data) => {
    if (data.action !== "resign") send({ type: data.action });
    else if (window.confirm(t("prompts.resign"))) send({ type: "resign" });
  },
  oneAt: (data) => send({ type: "direction", one_at: data.oneAt }),
  die: (data) => send({ type: "place", die: Number(data.die) }),
  half: (data) => {
    const options = legalFor({ type: "trick", card: data.card, half: data.half });
    if (options.length === 1 && (data.half === "both" || data.half === "reroll")) send(options[0]);
    else if (options.length) {
      ui.chooser = { card: data.card, half: data.half };
      render();
      root.querySelector(".chooser button")?.focus();
    }
  },
  choice: (data) => send(legalFor({ type: "trick", card: ui.chooser.card, half: ui.chooser.half })[Number(data.choice)]),
  cancel: () => {
    ui.chooser = null;
    render();
  },
};

root.addEventListener("click", (event) => {
  if (event.target.closest(".overview")) {
    closeOverview(); // a tap anywhere on an overview window closes it
    return;
  }
  const target = event.target.closest("button");
  if (!target || target.disabled) return;
  const name = Object.keys(CLICKS).find((key) => key in target.dataset);
  if (name) CLICKS[name](target.dataset);
});

// -- reporting a chat message or the game ----------------------------------------------

// The dialog lives beside the board, not in it: the board's redrawing leaves it alone.
const reportDialog = document.createElement("dialog");
reportDialog.className = "report-dialog";
reportDialog.setAttribute("aria-labelledby", "report-title");
root.after(reportDialog);

function openReport(about) {
  ui.report = about;
  const message = about.message ? (ui.game.chat || []).find((m) => m.id === about.message) : null;
  reportDialog.innerHTML = reportDialogHtml(about.message ? "message" : "game", message?.text ?? "");
  reportDialog.showModal();
  reportDialog.querySelector("input[name=reason]").focus();
}

function reportError(text) {
  const error = reportDialog.querySelector(".report-error");
  error.textContent = text;
  error.hidden = !text;
}

// The opener of the dialog, or the thanks that took its place.
function reportPlace(about) {
  const key = about.message ? `message-${about.message}` : "game";
  const opener = about.message ? `[data-report-message="${about.message}"]` : "[data-report-game]";
  return root.querySelector(`[data-reported="${key}"]`) || root.querySelector(opener);
}

reportDialog.addEventListener("change", () => reportError("")); // a reason chosen
reportDialog.addEventListener("click", (event) => {
  if (event.target.closest("[data-report-cancel]")) reportDialog.close();
});
reportDialog.addEventListener("close", () => {
  if (ui.report) reportPlace(ui.report)?.focus(); // cancelled, or Escape: back to the button
  ui.report = null;
});
reportDialog.addEventListener("submit", async (event) => {
  event.preventDefault();
  const form = event.target;
  const chosen = form.elements.reason.value;
  if (!chosen) {
    reportError(t("report.choose"));
    form.querySelector("input[name=reason]").focus();
    return;
  }
  const details = form.elements.details.value.trim();
  const words = reportReasons()[chosen];
  const about = ui.report;
  const button = form.querySelector("button[type=submit]");
  button.disabled = true;
  const { ok, body } = await request("/api/reports/", { ...about, reason: details ? `${words}: ${details}` : words });
  button.disabled = false;
  if (!ok) {
    reportError(body.error?.message ?? t("alerts.failed"));
    return;
  }
  if (about.message) ui.reported.messages.push(about.message);
  else ui.reported.game = true;
  render();
  reportDialog.close(); // the focus goes to the thanks, where the button was
});

root.addEventListener("submit", (event) => {
  if (!event.target.matches(".chat-form")) return;
  event.preventDefault();
  const input = event.target.querySelector("input");
  const text = input.value.trim();
  if (!text || !connected(t("alerts.offline_chat"))) return;
  ui.socket.send(JSON.stringify({ type: "chat", text }));
  input.value = "";
});

// Overview windows open while a mouse hovers their button; a click or tap pins them.
// Only a real mouse hovers: a finger's tap also sends mouse events, and opening the
// window on those would put it under the finger just before the tap's click lands.
root.addEventListener("pointerover", (event) => {
  if (event.pointerType !== "mouse") return;
  const target = event.target.closest("[data-overview]");
  if (target && ui.overview !== target.dataset.overview && !ui.pinned) {
    openOverview(target.dataset.overview, false, target.dataset.trigger);
  }
});
root.addEventListener("pointerout", (event) => {
  if (event.pointerType !== "mouse") return;
  const from = event.target.closest("[data-overview], .overview");
  const to = event.relatedTarget && event.relatedTarget.closest?.("[data-overview], .overview");
  if (from && !to && !ui.pinned) closeOverview();
});
document.addEventListener("keydown", (event) => {
  if (event.key === "Escape") {
    closeOverview();
    if (ui.chooser) {
      ui.chooser = null;
      render();
    }
  }
});
document.addEventListener("click", (event) => {
  // A click elsewhere on the page closes an open overview (a target the board has
  // just re-rendered is no longer connected: that click was the board's own).
  if (ui.overview && event.target.isConnected && !root.contains(event.target)) {
    closeOverview({ refocus: false });
  }
});

render();
keepOpen(`/ws/games/${root.dataset.gameId}/`, onMessage, onStatus);
