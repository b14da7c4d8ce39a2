// The replay: one board per event of the game, fetched once from
// /api/games/<id>/replay/ and drawn with the live board's own rendering (board-render.js).
import {
  resultHtml,
  roundEndHtml,
  scoreTableHtml,
  showsRoundEnd,
  tavernHtml,
} from "./board-render.js";
import { esc, html, moment, nameHtml, raw, t } from "./words.js";

const root = document.getElementById("replay");
const config = JSON.parse(document.getElementById("replay-config").textContent);
const ui = { steps: [], rounds: [], outcome: null, index: 0, overview: null, playing: null };

function gameAt(step) {
  // The shape the board's renderers expect, seen as a watcher (no controls, no clock).
  return {
    id: config.id, players: config.players, view: step.view, watching: true,
    clock: { away: {} }, recent: [], chat: [],
  };
}

function rollHtml(view) {
  if (!view.roll) return "";
  const who = view.roll.by === "me" ? config.players.me : config.players.opponent;
  const dice = view.roll.dice
    .map((v) => `<span class="die big ${view.roll.by}" role="img" aria-label="${html("cards.a_die", { value: v })}">${v}</span>`)
    .join("");
  const label = t("controls.their_roll", { name: who });
  const shown = html("controls.their_roll", { name: raw(nameHtml(who)) });
  return `<div class="rolled replay-roll" aria-label="${esc(label)}"><span class="label">${html("label", { label: raw(shown) })}</span> ${dice}</div>`;
}

// Where the game stands, in words (HTML); a finished game's sentence is the server's.
function situation(view) {
  const names = config.players;
  if (view.status === "finished") return esc(ui.outcome ?? "");
  if (view.round === 0 || view.turn === null) return "";
  const mover = view.turn === "me" ? names.me : names.opponent;
  return [
    html("status.round", { round: view.round, rounds: view.rounds }),
    html("status.to_move", { name: raw(nameHtml(mover)) }),
  ].join(esc(t("status.separator")));
}

function controlsHtml() {
  const last = ui.steps.length - 1;
  const at = ui.index;
  const current = ui.rounds.filter((r) => r.step <= at).pop();
  const rounds = ui.rounds.map((r) => `<button type="button" class="round-jump${current === r ? " current" : ""}"
      data-jump="${r.step}" aria-label="${html("replay.jump", { round: r.round })}"${current === r ? ' aria-current="step"' : ""}>${r.round}</button>`).join("");
  const button = (go, disabled, text, label) => `<button type="button" data-go="${go}" ${disabled ? "disabled" : ""}
      aria-label="${esc(label)}">${esc(text)}</button>`;
  const play = ui.playing ? button("play", false, t("replay.pause"), t("replay.pause_label"))
    : button("play", false, t("replay.play"), t("replay.play_label"));
  return `<div class="replay-controls" role="group" aria-label="${esc(t("replay.label"))}">
      ${button("first", at === 0, t("replay.first"), t("replay.first_label"))}
      ${button("back", at === 0, t("replay.back"), t("replay.back_label"))}
      ${play}
      ${button("forward", at === last, t("replay.forward"), t("replay.forward_label"))}
      ${button("last", at === last, t("replay.last"), t("replay.last_label"))}
      <label class="scrub"><span class="visually-hidden">${esc(t("replay.step"))}</span>
        <input type="range" min="1" max="${last + 1}" value="${at + 1}" data-scrub></label>
      <span class="step-count">${html("replay.step_of", { step: at + 1, steps: last + 1 })}</span>
    </div>
    <div class="round-jumps" role="group" aria-label="${esc(t("replay.rounds"))}"><span>${html("label", { label: t("replay.rounds") })}</span> ${rounds}</div>`;
}

function paint() {
  const step = ui.steps[ui.index];
  const game = gameAt(step);
  const view = step.view;
  root.dataset.step = ui.index + 1;
  root.dataset.steps = ui.steps.length;
  root.dataset.status = view.status;
  root.dataset.round = view.round;
  const mover = step.by === "me" ? "me" : step.by === "opponent" ? "opponent" : "game";
  root.innerHTML = `
    ${controlsHtml()}
    <div class="replay-now" role="status" aria-live="polite">
      <p class="what ${mover}">${esc(step.text || "")}</p>
      <p class="where">${situation(view)} <time datetime="${step.at}">${esc(moment(step.at))}</time></p>
    </div>
    ${showsRoundEnd(view) ? roundEndHtml(game) : ""}
    ${view.status === "finished" ? "" : tavernHtml(game)}
    ${rollHtml(view)}
    ${resultHtml(game)}
    ${scoreTableHtml(game, ui)}`;
  for (const item of document.querySelectorAll(".replay-timeline li")) {
    const current = Number(item.dataset.step) === ui.index + 1;
    item.classList.toggle("current", current);
    if (current) item.setAttribute("aria-current", "step");
    else item.removeAttribute("aria-current");
  }
}

function go(index, { updateHash = true } = {}) {
  ui.index = Math.max(0, Math.min(ui.steps.length - 1, index));
  if (updateHash) history.replaceState(null, "", `#step-${ui.index + 1}`);
  paint();
}

function stepFromHash() {
  const match = /^#step-(\d+)$/.exec(location.hash);
  return match ? Number(match[1]) - 1 : null;
}

function togglePlay() {
  if (ui.playing) {
    clearInterval(ui.playing);
    ui.playing = null;
  } else {
    if (ui.index === ui.steps.length - 1) ui.index = 0;
    ui.playing = setInterval(() => {
      if (ui.index >= ui.steps.length - 1) togglePlay();
      else go(ui.index + 1);
    }, 700);
  }
  paint();
}

function stopPlaying() {
  if (ui.playing) togglePlay();
}

root.addEventListener("click", (event) => {
  const target = event.target.closest("button");
  if (!target) {
    if (ui.overview && !event.target.closest(".overview")) { ui.overview = null; paint(); }
    return;
  }
  const data = target.dataset;
  if (data.go === "play") return togglePlay();
  if (data.go) {
    stopPlaying();
    const moves = { first: 0, back: ui.index - 1, forward: ui.index + 1, last: ui.steps.length - 1 };
    return go(moves[data.go]);
  }
  if (data.jump) { stopPlaying(); return go(Number(data.jump)); }
  if (data.overview) { ui.overview = ui.overview === data.overview ? null : data.overview; return paint(); }
  if ("closeOverview" in data) { ui.overview = null; paint(); }
});

root.addEventListener("input", (event) => {
  if (event.target.matches("[data-scrub]")) { stopPlaying(); go(Number(event.target.value) - 1); }
});

document.addEventListener("keydown", (event) => {
  if (!ui.steps.length || event.target.closest("input, textarea, select")) return;
  const keys = { ArrowLeft: ui.index - 1, ArrowRight: ui.index + 1, Home: 0, End: ui.steps.length - 1 };
  if (event.key in keys) {
    event.preventDefault();
    stopPlaying();
    go(keys[event.key]);
  } else if (event.key === "Escape" && ui.overview) {
    ui.overview = null;
    paint();
  }
});

document.querySelector(".replay-timeline")?.addEventListener("click", (event) => {
  const item = event.target.closest("li[data-step]");
  if (!item || !ui.steps.length) return;
  event.preventDefault();
  stopPlaying();
  go(Number(item.dataset.step) - 1);
  root.scrollIntoView({ behavior: "smooth", block: "start" });
});

// "#step-N" names a line of the move list too, so the browser scrolls there: show the
// board at that step instead.
window.addEventListener("hashchange", () => {
  const index = stepFromHash();
  if (index === null) return;
  if (index !== ui.index) go(index, { updateHash: false });
  root.scrollIntoView({ block: "start" });
});

async function load() {
  root.innerHTML = `<p class="loading">${esc(t("replay.loading"))}</p>`;
  try {
    const response = await fetch(config.source, { headers: { Accept: "application/json" } });
    const body = await response.json();
    if (!response.ok) throw new Error(body.error?.message || t("replay.error", { status: response.status }));
    ui.steps = body.steps;
    ui.rounds = body.rounds;
    ui.outcome = body.outcome ?? null; // the sentence of a finished game's last steps
  } catch (error) {
    root.innerHTML = `<p class="alert" role="alert">${html("replay.failed", { error: error.message })}</p>`;
    return;
  }
  // A finished game starts at its beginning; a game in progress at where it stands now.
  const start = config.status === "active" ? ui.steps.length - 1 : 0;
  const linked = stepFromHash();
  go(linked ?? start, { updateHash: false });
  if (linked !== null) root.scrollIntoView({ block: "start" });
  // the board's link to the analysis: still there once the steps above it are drawn
  else if (location.hash === "#analysis") document.getElementById("analysis")?.scrollIntoView({ block: "start" });
}

// The analysis after the game, while the worker prepares it: its section (worded by the
// server) is fetched again every few seconds and put in place, until it is ready.
const ANALYSIS_POLL_MS = 5000;
const ANALYSIS_POLLS = 60;

function watchAnalysis(tries = 0) {
  const section = document.getElementById("analysis");
  if (!section || section.dataset.state !== "pending" || tries >= ANALYSIS_POLLS) return;
  setTimeout(async () => {
    try {
      const response = await fetch(section.dataset.source, { headers: { Accept: "text/html" } });
      if (response.ok) {
        const box = document.createElement("div");
        box.innerHTML = await response.text();
        const fresh = box.querySelector("#analysis");
        if (fresh && fresh.dataset.state !== "pending") section.replaceWith(fresh);
        else if (fresh) {
          const status = section.querySelector("[role=status]");
          status.textContent = fresh.querySelector("[role=status]").textContent; // the progress
        }
      }
    } catch {
      // offline for a moment: the next try
    }
    watchAnalysis(tries + 1);
  }, ANALYSIS_POLL_MS);
}

load();
watchAnalysis();
