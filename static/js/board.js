// The game board: renders the game JSON pushed over /ws/games/<id>/ and sends the
// player's clicks as commands (docs/protocol.md). Rendering lives in board-render.js.
import { keepOpen } from "./live.js";
import {
  chatHtml,
  controlsHtml,
  extrasHtml,
  recentHtml,
  resultHtml,
  roundEndHtml,
  scoreTableHtml,
  showsRoundEnd,
  statusHtml,
  tavernHtml,
  trickPanelHtml,
} from "./board-render.js";
import { esc, html, raw, t } from "./words.js";

const root = document.getElementById("board");
const initial = JSON.parse(document.getElementById("game-data").textContent);

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
};

function render() {
  // Keep what the player is typing across re-renders.
  const typing = root.querySelector(".chat-form input");
  const draft = typing ? typing.value : "";
  const hadFocus = typing && document.activeElement === typing;
  // and the focus on an overview's button (a push re-renders the board under it)
  const focused = root.contains(document.activeElement) ? document.activeElement.dataset?.trigger : null;
  paint();
  const input = root.querySelector(".chat-form input");
  if (input) {
    input.value = draft;
    if (hadFocus) input.focus();
  }
  if (focused) focusTrigger(focused);
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
  root.dataset.connection = ui.connection; // connecting, open or closed
  root.innerHTML = `
    <header class="board-head">
      <h1>${html("status.heading", {
        me: raw(`<span class="me">${esc(game.players.me)}</span>`),
        opponent: raw(`<span class="opponent">${esc(game.players.opponent)}</span>`),
      })}</h1>
      <div class="status" role="status" aria-live="polite">${statusHtml(game, ui)}</div>
      <p class="alert" role="alert" ${ui.alert ? "" : "hidden"}>${esc(ui.alert)}</p>
    </header>
    ${showsRoundEnd(view) ? roundEndHtml(game) : ""}
    ${view.status === "finished" ? trickPanelHtml(game, "me") : tavernHtml(game, { tricks: true })}
    ${controlsHtml(game, ui)}
    ${resultHtml(game)}
    ${scoreTableHtml(game, ui)}
    ${chatHtml(game)}
    ${extrasHtml(game)}
    ${recentHtml(game)}`;
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
  } else if (message.type === "chat_hidden") {
    ui.game.chat = (ui.game.chat || []).filter((m) => m.id !== message.id);
  } else if (message.type === "ack") {
    if (message.client_id !== ui.pending) return;
    ui.pending = null;
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

// Actions outside the rules (the clock, rematches) go through the JSON API.
async function post(path, data = {}) {
  const token = document.cookie.split("; ").find((c) => c.startsWith("csrftoken="))?.split("=")[1];
  const response = await fetch(path, {
    method: "POST",
    headers: { "X-CSRFToken": token ?? "", "Content-Type": "application/json" },
    body: JSON.stringify(data),
  });
  const body = await response.json();
  if (!response.ok) {
    showAlert(body.error?.message ?? t("alerts.failed"));
    render();
    return null;
  }
  return body;
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

root.addEventListener("click", (event) => {
  if (event.target.closest(".overview")) {
    closeOverview(); // a tap anywhere on an overview window closes it
    return;
  }
  const target = event.target.closest("button");
  if (!target || target.disabled) return;
  const data = target.dataset;
  if (data.overview) {
    if (ui.overview === data.overview && ui.pinned) closeOverview();
    else openOverview(data.overview, true, data.trigger);
    return;
  }
  if (data.reportGame !== undefined || data.reportMessage) {
    const reason = window.prompt(t("prompts.report"));
    if (!reason || !reason.trim()) return;
    const target = data.reportMessage
      ? { message: Number(data.reportMessage) } : { game: Number(root.dataset.gameId) };
    post("/api/reports/", { ...target, reason }).then((body) => {
      if (body) {
        showAlert(t("alerts.reported"));
        render();
      }
    });
  } else if (data.extend !== undefined) {
    post(`/api/games/${root.dataset.gameId}/extend/`);
  } else if (data.rematch !== undefined) {
    post(`/api/games/${root.dataset.gameId}/rematch/`);
  } else if (data.acceptRematch) {
    post(`/api/invitations/${data.acceptRematch}/accept/`).then((body) => {
      if (body) window.location.assign(`/games/${body.game}/`);
    });
  } else if (data.action === "resign") {
    if (window.confirm(t("prompts.resign"))) send({ type: "resign" });
  } else if (data.action === "abort") {
    if (window.confirm(t("prompts.abort"))) send({ type: "abort" });
  } else if (data.action) {
    send({ type: data.action });
  } else if (data.oneAt) {
    send({ type: "direction", one_at: data.oneAt });
  } else if (data.die !== undefined) {
    send({ type: "place", die: Number(data.die) });
  } else if (data.half) {
    const options = legalFor({ type: "trick", card: data.card, half: data.half });
    if (options.length === 1 && (data.half === "both" || data.half === "reroll")) send(options[0]);
    else if (options.length) {
      ui.chooser = { card: data.card, half: data.half };
      render();
      root.querySelector(".chooser button")?.focus();
    }
  } else if (data.choice !== undefined) {
    const options = legalFor({ type: "trick", card: ui.chooser.card, half: ui.chooser.half });
    send(options[Number(data.choice)]);
  } else if (data.cancel !== undefined) {
    ui.chooser = null;
    render();
  }
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
