// Rendering the game JSON (see docs/protocol.md) into HTML. Pure functions of the
// game and of the board's local UI state; board.js owns the socket and the clicks.

export const NATIONS = {
  american: { name: "American", code: "AM" },
  french: { name: "French", code: "FR" },
  german: { name: "German", code: "DE" },
  chinese: { name: "Chinese", code: "CN" },
  dutch: { name: "Dutch", code: "NL" },
  turkish: { name: "Turkish", code: "TR" },
  spanish: { name: "Spanish", code: "ES" },
  italian: { name: "Italian", code: "IT" },
};
export const ACTIONS = { adjust: "Die ±1", both: "Add both dice", reroll: "Roll again", wild: "2 Sailors" };

const HTML_ESCAPES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
export const esc = (value) => String(value).replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]);

const plural = (n, one, many) => `${n} ${n === 1 ? one : many}`;

export function cardLabel(card) {
  if (!card) return "no card";
  if (card.kind === "sailor") return `${NATIONS[card.nation].name} sailor, value ${card.value}`;
  return `Dirty trick: 2 Sailors or ${ACTIONS[card.action]}`;
}

export function cardHtml(card, extraClass = "") {
  if (!card) return `<div class="card empty ${extraClass}" aria-label="no card"></div>`;
  if (card.kind === "sailor") {
    const nation = NATIONS[card.nation];
    return `<div class="card sailor nation-${card.nation} ${extraClass}" role="img"
      aria-label="${esc(cardLabel(card))}" title="${esc(cardLabel(card))}">
      <span class="code" aria-hidden="true">${nation.code}</span>
      <span class="value" aria-hidden="true">${card.value}</span>
      <span class="name" aria-hidden="true">${nation.name}</span></div>`;
  }
  return `<div class="card trick ${extraClass}" role="img" aria-label="${esc(cardLabel(card))}"
    title="${esc(cardLabel(card))}"><span class="half top" aria-hidden="true">2 Sailors</span>
    <span class="half bottom" aria-hidden="true">${ACTIONS[card.action]}</span></div>`;
}

function diceHtml(values, side, names) {
  const who = side === "me" ? names.me : names.opponent;
  return values
    .map((v) => `<span class="die ${side}" role="img" aria-label="${esc(who)}'s die showing ${v}">${v}</span>`)
    .join("");
}

function pips(count, side) {
  return `<span class="pips ${side}" aria-hidden="true">${"●".repeat(count)}</span>`;
}

// -- status ------------------------------------------------------------------------------

function ratingsHtml(game) {
  const part = (side, name) => {
    const c = game.ratings[side];
    const sign = c.change >= 0 ? "+" : "";
    return `<span class="${side}">${esc(name)} ${c.before} → ${c.after} (${sign}${c.change})</span>`;
  };
  const me = game.watching ? game.players.me : "you";
  return `<span class="ratings">Ratings: ${part("me", me)} · ${part("opponent", game.players.opponent)}</span>`;
}

export function statusHtml(game, ui) {
  const view = game.view;
  const names = game.players;
  const lines = [];
  if (view.status === "finished" && view.result.reason === "aborted") {
    lines.push("<strong>Game aborted: no result.</strong>");
  } else if (view.status === "finished") {
    const r = view.result;
    const who = r.winner === "me" ? (game.watching ? `${names.me} won` : "You won")
      : r.winner === "opponent" ? `${names.opponent} won` : "A draw";
    const how = r.reason === "completed" ? "" : ` (${r.reason === "resignation" ? "by resignation" : r.reason})`;
    lines.push(`<strong>Game over: ${esc(who)}${how}, ${r.me.total} : ${r.opponent.total}.</strong>`);
    if (game.ratings) lines.push(ratingsHtml(game));
    else if (game.rated === false) lines.push("A casual game: ratings did not change.");
  } else {
    let turn;
    if (game.watching) turn = `${esc(view.turn === "me" ? names.me : names.opponent)} to move (you are watching)`;
    else if (view.turn === "me") {
      turn = {
        turn: "<strong>Your turn:</strong> roll, or call Shanghai",
        direction: "<strong>Your turn:</strong> choose the end that is number 1 (click a grey captain)",
        placement: "<strong>Your turn:</strong> place a die, or first play a dirty trick",
      }[view.phase];
    } else turn = `${esc(names.opponent)}'s turn`;
    const kind = game.rated === undefined ? "" : game.rated ? "rated · " : "casual · ";
    lines.push(`Round ${view.round} of ${view.rounds} · ${kind}${turn}`);
    const clock = game.clock;
    if (clock.deadline) {
      const extra = clock.extended ? " (one extra day given)" : "";
      lines.push(`<span class="clock">Time left to move: ${timeLeft(clock.deadline)}${extra}</span>`);
    }
  }
  for (const side of ["opponent", "me"]) {
    for (const h of game.clock.away[side] || []) {
      const who = side === "me" ? (game.watching ? names.me : "You are") : `${names.opponent} is`;
      lines.push(`<span class="away">${esc(who)} away ${h.start} – ${h.end}: deadlines pause.</span>`);
    }
  }
  const last = (game.recent || []).find((a) => a.by === "opponent");
  if (last) {
    const stop = /[.!?]$/.test(last.text) ? "" : ".";
    lines.push(`<span class="last-action">${esc(names.opponent)} ${esc(last.text)}${stop}</span>`);
  }
  if (ui.connection !== "open") {
    const what = ui.connection === "connecting" ? "Connecting…" : "Reconnecting…";
    lines.push(`<span class="connection">${what}</span>`);
  }
  return lines.map((l) => `<p>${l}</p>`).join("");
}

export function timeLeft(iso) {
  const ms = new Date(iso).getTime() - Date.now();
  if (ms <= 0) return "the deadline has passed";
  const hours = Math.floor(ms / 3600000);
  const days = Math.floor(hours / 24);
  const when = new Date(iso).toISOString().slice(0, 16).replace("T", " ");
  const left = days > 0 ? `${plural(days, "day", "days")} ${plural(hours % 24, "hour", "hours")}`
    : hours > 0 ? plural(hours, "hour", "hours") : plural(Math.ceil(ms / 60000), "minute", "minutes");
  return `${left} (until ${when} UTC)`;
}

// -- the round-end overview --------------------------------------------------------------

export function showsRoundEnd(view) {
  if (!view.last_round) return false;
  if (view.status === "finished") return true;
  return !view.roll && view.me.placed_this_round === 0 && view.opponent.placed_this_round === 0;
}

function arrowHtml(outcome, names) {
  if (outcome.to === "me") return `<span class="arrow to-me" aria-label="goes to ${esc(names.me)}">↓ ${esc(names.me)}</span>`;
  if (outcome.to === "opponent") {
    return `<span class="arrow to-opponent" aria-label="goes to ${esc(names.opponent)}">↑ ${esc(names.opponent)}</span>`;
  }
  return `<span class="arrow removed" aria-label="removed from the game">✕ removed</span>`;
}

export function roundEndHtml(game) {
  const report = game.view.last_round;
  const names = game.players;
  const caller = report.called_by === "me" ? names.me : names.opponent;
  const columns = report.cards.map((c) => {
    const sums = c.my_neighbours === null ? ""
      : `<span class="sums">beside: <span class="me">${c.my_neighbours}</span> : <span class="opponent">${c.opponent_neighbours}</span></span>`;
    return `<li class="outcome ${c.to ? `to-${c.to}` : "removed"}" data-reason="${c.reason}">
      <span class="count opponent" aria-label="${esc(names.opponent)}: ${plural(c.opponent_dice.length, "die", "dice")}">${c.opponent_dice.length}</span>
      <span class="number">${c.number}</span>${cardHtml(c.card, "small")}
      <span class="count me" aria-label="${esc(names.me)}: ${plural(c.my_dice.length, "die", "dice")}">${c.my_dice.length}</span>
      ${sums}${arrowHtml(c, names)}</li>`;
  });
  return `<section class="round-end" aria-label="Round ${report.round} result">
    <h2>Round ${report.round}: ${esc(caller)} called Shanghai!</h2>
    <ol class="outcomes">${columns.join("")}</ol>
    <p class="hint">${game.view.status === "finished" ? "" : "This stays until the next roll."}</p></section>`;
}

// -- the tavern --------------------------------------------------------------------------

function captainHtml(end, canChoose, number) {
  if (canChoose) {
    return `<button type="button" class="captain grey" data-one-at="${end}"
      aria-label="Number 1 at the ${end} end">⚓<span class="label">1 here</span></button>`;
  }
  return `<span class="captain placeholder" aria-hidden="true">${number ?? ""}</span>`;
}

export function tavernHtml(game) {
  const view = game.view;
  const names = game.players;
  const choosing = !game.watching && view.turn === "me" && view.phase === "direction";
  const slots = view.tavern.map((slot) => `<li class="slot">
      <div class="dice-row opponent">${diceHtml(slot.opponent_dice, "opponent", names)}</div>
      <div class="number" aria-label="${slot.number ? `position ${slot.number}` : "no number yet"}">${slot.number ?? ""}</div>
      ${cardHtml(slot.card)}
      <div class="dice-row me">${diceHtml(slot.my_dice, "me", names)}</div></li>`);
  const leftNumber = view.direction ? (view.direction === "left" ? 1 : 6) : "";
  const rightNumber = view.direction ? (view.direction === "left" ? 6 : 1) : "";
  const captains = ["me", "opponent"]
    .filter((side) => view[side].trick_used_this_round)
    .map((side) => `<span class="captain ${side}" role="img"
      aria-label="${esc(names[side])}'s captain: a trick was used this round">⚓</span>`)
    .join("");
  return `<section class="table" aria-label="The tavern">
    <p class="supply opponent">${esc(names.opponent)}: ${plural(view.opponent.supply, "die", "dice")} in supply ${pips(view.opponent.supply, "opponent")}</p>
    <div class="tavern-row">
      ${captainHtml("left", choosing, leftNumber)}
      <ol class="tavern">${slots.join("")}</ol>
      ${captainHtml("right", choosing, rightNumber)}
    </div>
    <div class="captains-out">${captains}</div>
    <p class="supply me">${esc(names.me)}: ${plural(view.me.supply, "die", "dice")} in supply ${pips(view.me.supply, "me")}</p>
  </section>`;
}

// -- turn controls -----------------------------------------------------------------------

const has = (legal, pred) => legal.some(pred);

function trickCardHtml(trick, legal, disabled) {
  const wild = has(legal, (c) => c.type === "trick" && c.card === trick.id && c.half === "wild");
  const action = has(legal, (c) => c.type === "trick" && c.card === trick.id && c.half === trick.action);
  return `<div class="trick-card" data-card="${esc(trick.id)}">
    <button type="button" class="half top" data-card="${esc(trick.id)}" data-half="wild"
      ${wild && !disabled ? "" : "disabled"} aria-label="Use ${esc(trick.id)} as 2 Sailors (a wild sailor)">2 Sailors</button>
    <button type="button" class="half bottom" data-card="${esc(trick.id)}" data-half="${trick.action}"
      ${action && !disabled ? "" : "disabled"} aria-label="Use ${esc(trick.id)}: ${ACTIONS[trick.action]}">${ACTIONS[trick.action]}</button>
  </div>`;
}

function chooserHtml(game, ui) {
  const { card, half } = ui.chooser;
  const options = game.view.legal.filter((c) => c.type === "trick" && c.card === card && c.half === half);
  const dice = game.view.roll.dice;
  const buttons = options.map((c, i) => {
    const label = half === "wild" ? `${NATIONS[c.nation].name} sailor`
      : `Die ${c.die + 1}: ${dice[c.die]} → ${dice[c.die] + c.delta}`;
    return `<button type="button" data-choice="${i}">${esc(label)}</button>`;
  });
  const question = half === "wild" ? "Which crew does the wild sailor join?" : "Which die, up or down?";
  return `<div class="chooser" role="group" aria-label="${question}"><p>${question}</p>
    ${buttons.join("")}<button type="button" class="secondary" data-cancel>Cancel</button></div>`;
}

export function controlsHtml(game, ui) {
  const view = game.view;
  if (game.watching || view.status === "finished") return "";
  const legal = view.legal;
  const mine = view.turn === "me";
  const busy = Boolean(ui.pending);
  const parts = [];
  const canRoll = has(legal, (c) => c.type === "roll");
  const canShanghai = has(legal, (c) => c.type === "shanghai");
  parts.push(`<div class="buttons">
    <button type="button" data-action="roll" ${canRoll && !busy ? "" : "disabled"}>Roll</button>
    <button type="button" data-action="shanghai" ${canShanghai && !busy ? "" : "disabled"}>Shanghai!</button>
    </div>`);
  if (view.roll) {
    const placing = mine && view.phase === "placement";
    const dice = view.roll.dice.map((v, i) => `<button type="button" class="die big ${view.roll.by}" data-die="${i}"
        ${placing && !busy && !ui.chooser ? "" : "disabled"} aria-label="Place the ${v}">${v}</button>`);
    const tricks = placing && !view.me.trick_used_this_round
      ? view.me.tricks.map((t) => trickCardHtml(t, legal, busy || Boolean(ui.chooser))) : [];
    const who = view.roll.by === "me" ? "Your roll" : `${esc(game.players.opponent)}'s roll`;
    parts.push(`<div class="rolled" aria-label="${who}"><span class="label">${who}:</span>
      ${dice.join("")}${tricks.length ? `<div class="tricks" aria-label="Your dirty tricks">${tricks.join("")}</div>` : ""}</div>`);
    if (placing && ui.chooser) parts.push(chooserHtml(game, ui));
  }
  return `<section class="controls" aria-label="Your move">${parts.join("")}</section>`;
}

// -- score table and overviews -----------------------------------------------------------

function sailorsListHtml(sailors) {
  const rows = Object.entries(sailors).filter(([, cards]) => cards.length);
  if (!rows.length) return "<p>No sailors yet.</p>";
  return `<ul>${rows.map(([nation, cards]) => `<li><span class="swatch nation-${nation}"></span>
    ${NATIONS[nation].name}: ${cards.map((c) => (c.wild ? `${c.value} (wild)` : c.value)).join(", ")}</li>`).join("")}</ul>`;
}

function toComeHtml(cards) {
  if (!cards.length) return "<p>No cards left.</p>";
  const groups = {};
  for (const card of cards) {
    const key = card.kind === "sailor" ? card.nation : "tricks";
    (groups[key] ||= []).push(card.kind === "sailor" ? card.value : ACTIONS[card.action]);
  }
  return `<ul>${Object.entries(groups).map(([key, values]) => `<li>${key === "tricks" ? "Dirty tricks"
    : `<span class="swatch nation-${key}"></span> ${NATIONS[key].name}`}: ${values.join(", ")}</li>`).join("")}</ul>`;
}

function pointsHtml(game) {
  const p = game.view.projected;
  const rows = Object.keys(NATIONS).map((n) => `<tr><th scope="row">${NATIONS[n].name}</th>
    <td class="me">${p.me.by_nation[n]}</td><td class="opponent">${p.opponent.by_nation[n]}</td></tr>`);
  return `<table><thead><tr><th></th><th class="me">${esc(game.players.me)}</th>
    <th class="opponent">${esc(game.players.opponent)}</th></tr></thead>
    <tbody>${rows.join("")}<tr><th scope="row">Unused tricks</th><td class="me">${p.me.tricks}</td>
    <td class="opponent">${p.opponent.tricks}</td></tr></tbody></table>`;
}

function overviewHtml(id, title, body, ui) {
  const open = ui.overview === id;
  return `<div class="overview" id="overview-${id}" role="dialog" aria-label="${esc(title)}" ${open ? "" : "hidden"}>
    <button type="button" class="close" data-close-overview aria-label="Close">×</button>
    <h3>${esc(title)}</h3>${body}</div>`;
}

function trigger(id, label, ui, cls = "") {
  return `<button type="button" class="overview-trigger ${cls}" data-overview="${id}"
    aria-controls="overview-${id}" aria-expanded="${ui.overview === id}">${label}</button>`;
}

export function scoreTableHtml(game, ui) {
  const view = game.view;
  const names = game.players;
  const table = view.score_table;
  const rows = table.nations.map((r) => `<tr><th scope="row"><span class="swatch nation-${r.nation}"></span>
    ${NATIONS[r.nation].name}</th><td class="me">${r.me}</td><td class="opponent">${r.opponent}</td>
    <td class="to-come">${r.remaining_cards} / ${r.remaining_points}</td></tr>`);
  const t = table.tricks;
  return `<section class="score" aria-label="Score table">
    <table class="score-table">
      <thead><tr><th scope="col">Crew</th>
        <th scope="col">${trigger("mine", esc(names.me), ui, "me")}</th>
        <th scope="col">${trigger("theirs", esc(names.opponent), ui, "opponent")}</th>
        <th scope="col">${trigger("to-come", "Still to come<br><small>cards / points</small>", ui)}</th></tr></thead>
      <tbody>${rows.join("")}
        <tr class="tricks-row"><th scope="row">Dirty tricks</th><td class="me">${t.me}</td>
          <td class="opponent">${t.opponent}</td><td class="to-come">${t.remaining_cards} / ${t.remaining_points}</td></tr></tbody>
      <tfoot><tr><th scope="row">${trigger("points", "Score now", ui)}</th>
        <td class="me">${view.projected.me.total}</td><td class="opponent">${view.projected.opponent.total}</td><td></td></tr></tfoot>
    </table>
    ${overviewHtml("mine", `${names.me}'s sailors`, sailorsListHtml(view.me.sailors), ui)}
    ${overviewHtml("theirs", `${names.opponent}'s sailors`, sailorsListHtml(view.opponent.sailors), ui)}
    ${overviewHtml("to-come", "Cards still to come (tavern and deck)", toComeHtml(table.still_to_come), ui)}
    ${overviewHtml("points", "Points each crew gives right now", pointsHtml(game), ui)}
  </section>`;
}

// -- the final result --------------------------------------------------------------------

function outcomeText(mine, theirs, names) {
  if (!mine && !theirs) return "—";
  if (!theirs) return `${esc(names.me)} keeps ${mine}`;
  if (!mine) return `${esc(names.opponent)} keeps ${theirs}`;
  if (mine === theirs) return "equal: all discarded";
  return mine > theirs ? `${esc(names.me)} takes the weaker crew: ${theirs}`
    : `${esc(names.opponent)} takes the weaker crew: ${mine}`;
}

export function resultHtml(game) {
  const view = game.view;
  const r = view.result;
  if (!r || r.reason === "aborted") return "";
  const names = game.players;
  const rows = Object.keys(NATIONS).map((n) => `<tr><th scope="row">${NATIONS[n].name}</th>
    <td class="me">${view.me.strength[n]}</td><td class="opponent">${view.opponent.strength[n]}</td>
    <td>${outcomeText(view.me.strength[n], view.opponent.strength[n], names)}</td>
    <td class="me">${r.me.by_nation[n]}</td><td class="opponent">${r.opponent.by_nation[n]}</td></tr>`);
  return `<section class="result" aria-label="Final score"><h2>Final score</h2>
    <table class="list"><thead><tr><th>Crew</th><th class="me">${esc(names.me)}</th><th class="opponent">${esc(names.opponent)}</th>
      <th>Outcome</th><th class="me">Points</th><th class="opponent">Points</th></tr></thead>
    <tbody>${rows.join("")}<tr><th scope="row">Unused tricks</th><td></td><td></td><td>1 point each</td>
      <td class="me">${r.me.tricks}</td><td class="opponent">${r.opponent.tricks}</td></tr></tbody>
    <tfoot><tr><th scope="row">Total</th><td></td><td></td><td></td>
      <td class="me total">${r.me.total}</td><td class="opponent total">${r.opponent.total}</td></tr></tfoot></table></section>`;
}

export function recentHtml(game) {
  const recent = game.recent || [];
  if (!recent.length) return "";
  const items = recent.map((a) => `<li class="${a.by}">${esc(a.by === "me" ? game.players.me : game.players.opponent)}
    ${esc(a.text)}</li>`);
  return `<details class="recent"><summary>Recent moves</summary><ol>${items.join("")}</ol></details>`;
}

// -- around the game: extra day, abort, rematch ------------------------------------------

export function extrasHtml(game) {
  const view = game.view;
  if (game.watching) return "";
  const parts = [];
  if (game.clock.can_extend) {
    parts.push(`<button type="button" class="secondary" data-extend>Give ${esc(game.players.opponent)} one more day</button>`);
  }
  if (view.legal.some((c) => c.type === "abort")) {
    parts.push(`<button type="button" class="secondary" data-action="abort">Abort (no result)</button>`);
  }
  const replayLabel = view.status === "active" ? "Step through the moves so far" : "Replay the game";
  parts.push(`<a class="button secondary" href="/games/${game.id}/replay/">${replayLabel}</a>`);
  parts.push(`<button type="button" class="secondary" data-report-game>Report this game</button>`);
  if (view.status === "active") {
    parts.push(`<button type="button" class="secondary" data-action="resign">Resign</button>`);
  } else {
    const offer = game.rematch;
    if (!offer || offer.status === "declined" || offer.status === "cancelled") {
      parts.push(`<button type="button" data-rematch>Offer a rematch</button>`);
    } else if (offer.status === "accepted" && offer.game) {
      parts.push(`<a class="button" href="/games/${offer.game}/">Go to the rematch</a>`);
    } else if (offer.by === "me") {
      parts.push(`<span>Rematch offered: waiting for ${esc(game.players.opponent)}.</span>`);
    } else {
      parts.push(`<button type="button" data-accept-rematch="${offer.invitation}">Accept the rematch</button>`);
    }
  }
  return `<p class="extras">${parts.join(" ")}</p>`;
}

// -- chat --------------------------------------------------------------------------------

export function chatHtml(game) {
  const names = game.players;
  const items = (game.chat || []).map((m) => `<li class="${m.by}" data-message="${m.id}">
    <strong>${esc(m.by === "me" ? names.me : names.opponent)}:</strong> <span class="text">${esc(m.text)}</span>
    ${!game.watching && m.by === "opponent"
      ? `<button type="button" class="link-button report" data-report-message="${m.id}">Report</button>` : ""}</li>`);
  const form = game.watching ? "" : `<form class="chat-form">
    <label for="chat-text" class="visually-hidden">Message to ${esc(names.opponent)}</label>
    <input id="chat-text" name="text" maxlength="500" autocomplete="off" placeholder="Say something to ${esc(names.opponent)}">
    <button type="submit">Send</button></form>`;
  return `<section class="chat" aria-label="Chat"><h2>Chat</h2>
    <ol class="messages-list" aria-live="polite">${items.join("") || "<li class='empty'>No messages yet.</li>"}</ol>
    ${form}</section>`;
}
