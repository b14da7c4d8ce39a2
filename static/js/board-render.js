// Rendering the game JSON (see docs/protocol.md) into HTML. Pure functions of the
// game and of the board's local UI state; board.js owns the socket and the clicks.
// Every word comes from words.js.
import { ACTIONS, DIRECTIONS, NATIONS, esc, html, raw, t } from "./words.js";

export function cardLabel(card) {
  if (!card) return t("cards.none");
  if (card.kind === "sailor") return t("cards.sailor", { nation: NATIONS[card.nation].name, value: card.value });
  return t("cards.trick", { wild: ACTIONS.wild, action: ACTIONS[card.action] });
}

export function cardHtml(card, extraClass = "") {
  if (!card) return `<div class="card empty ${extraClass}" aria-label="${esc(cardLabel(card))}"></div>`;
  const label = esc(cardLabel(card));
  if (card.kind === "sailor") {
    const nation = NATIONS[card.nation];
    return `<div class="card sailor nation-${card.nation} ${extraClass}" role="img"
      aria-label="${label}" title="${label}">
      <span class="code" aria-hidden="true">${esc(nation.code)}</span>
      <span class="value" aria-hidden="true">${card.value}</span>
      <span class="name" aria-hidden="true">${esc(nation.name)}</span></div>`;
  }
  return `<div class="card trick ${extraClass}" role="img" aria-label="${label}"
    title="${label}"><span class="half top" aria-hidden="true">${esc(ACTIONS.wild)}</span>
    <span class="half bottom" aria-hidden="true">${esc(ACTIONS[card.action])}</span></div>`;
}

function diceHtml(values, side, names) {
  const name = side === "me" ? names.me : names.opponent;
  return values
    .map((v) => `<span class="die ${side}" role="img" aria-label="${html("cards.die", { name, value: v })}">${v}</span>`)
    .join("");
}

function pips(count, side) {
  return `<span class="pips ${side}" aria-hidden="true">${"●".repeat(count)}</span>`;
}

// -- status ------------------------------------------------------------------------------

function ratingsHtml(game) {
  const part = (side, name) => {
    const c = game.ratings[side];
    const change = `${c.change >= 0 ? "+" : ""}${c.change}`;
    return raw(`<span class="${side}">${html("status.rating_change", { name, before: c.before, after: c.after, change })}</span>`);
  };
  const me = game.watching ? game.players.me : t("status.you");
  return `<span class="ratings">${html("status.ratings", {
    me: part("me", me), opponent: part("opponent", game.players.opponent),
  })}</span>`;
}

function turnHtml(game) {
  const view = game.view;
  const names = game.players;
  if (game.watching) return html("status.watching", { name: view.turn === "me" ? names.me : names.opponent });
  if (view.turn !== "me") return html("status.their_turn", { name: names.opponent });
  const what = {
    turn: t("status.phases.turn"),
    direction: t("status.phases.direction"),
    placement: t("status.phases.placement"),
  }[view.phase];
  return `<strong>${esc(t("status.your_turn"))}</strong> ${esc(what)}`;
}

export function statusHtml(game, ui) {
  const view = game.view;
  const names = game.players;
  const lines = [];
  if (view.status === "finished") {
    // The sentence comes from the server (games/words.py), the same on every page.
    if (game.outcome) lines.push(`<strong>${esc(game.outcome)}</strong>`);
    const reason = view.result?.reason;
    if (reason !== "aborted" && reason !== "annulled") {
      if (game.ratings) lines.push(ratingsHtml(game));
      else if (game.rated === false) lines.push(esc(t("status.casual_result")));
    }
  } else {
    const parts = [html("status.round", { round: view.round, rounds: view.rounds })];
    if (game.rated !== undefined) parts.push(esc(game.rated ? t("status.rated") : t("status.casual")));
    parts.push(turnHtml(game));
    lines.push(parts.join(esc(t("status.separator"))));
    const clock = game.clock;
    if (clock.deadline) {
      const extra = clock.extended ? ` ${esc(t("clock.extended"))}` : "";
      lines.push(`<span class="clock">${html("clock.left", { left: timeLeft(clock.deadline) })}${extra}</span>`);
    }
  }
  for (const side of ["opponent", "me"]) {
    for (const h of game.clock.away[side] || []) {
      const away = side === "me" && !game.watching
        ? html("clock.away_me", { start: h.start, end: h.end })
        : html("clock.away", { name: names[side], start: h.start, end: h.end });
      lines.push(`<span class="away">${away}</span>`);
    }
  }
  const last = (game.recent || []).find((a) => a.by === "opponent");
  if (last) {
    const text = t("status.last_action", { name: names.opponent, action: last.text });
    const stop = /[.!?]$/.test(text) ? "" : t("status.stop");
    lines.push(`<span class="last-action">${esc(text + stop)}</span>`);
  }
  if (ui.connection !== "open") {
    const what = ui.connection === "connecting" ? t("connection.connecting") : t("connection.reconnecting");
    lines.push(`<span class="connection">${esc(what)}</span>`);
  }
  return lines.map((l) => `<p>${l}</p>`).join("");
}

// The time left until `iso`, in words (plain text).
export function timeLeft(iso) {
  const ms = new Date(iso).getTime() - Date.now();
  if (ms <= 0) return t("clock.passed");
  const hours = Math.floor(ms / 3600000);
  const days = Math.floor(hours / 24);
  const when = new Date(iso).toISOString().slice(0, 16).replace("T", " ");
  const left = days > 0
    ? t("clock.days_hours", { days: t("clock.days", { n: days }), hours: t("clock.hours", { n: hours % 24 }) })
    : hours > 0 ? t("clock.hours", { n: hours }) : t("clock.minutes", { n: Math.ceil(ms / 60000) });
  return t("clock.until", { left, when });
}

// -- the round-end overview --------------------------------------------------------------

export function showsRoundEnd(view) {
  if (!view.last_round) return false;
  if (view.status === "finished") return true;
  return !view.roll && view.me.placed_this_round === 0 && view.opponent.placed_this_round === 0;
}

function arrowHtml(outcome, names) {
  if (outcome.to === "me" || outcome.to === "opponent") {
    const name = names[outcome.to];
    const arrow = outcome.to === "me" ? "↓" : "↑";
    return `<span class="arrow to-${outcome.to}" aria-label="${html("round_end.to", { name })}">${arrow} ${esc(name)}</span>`;
  }
  return `<span class="arrow removed" aria-label="${esc(t("round_end.removed_label"))}">✕ ${esc(t("round_end.removed"))}</span>`;
}

export function roundEndHtml(game) {
  const report = game.view.last_round;
  const names = game.players;
  const caller = report.called_by === "me" ? names.me : names.opponent;
  const columns = report.cards.map((c) => {
    const sums = c.my_neighbours === null ? ""
      : `<span class="sums">${esc(t("round_end.beside"))} <span class="me">${c.my_neighbours}</span> : <span class="opponent">${c.opponent_neighbours}</span></span>`;
    const theirs = html("round_end.dice", { name: names.opponent, n: c.opponent_dice.length });
    const mine = html("round_end.dice", { name: names.me, n: c.my_dice.length });
    return `<li class="outcome ${c.to ? `to-${c.to}` : "removed"}" data-reason="${esc(c.reason)}">
      <span class="count opponent" aria-label="${theirs}">${c.opponent_dice.length}</span>
      <span class="number">${c.number}</span>${cardHtml(c.card, "small")}
      <span class="count me" aria-label="${mine}">${c.my_dice.length}</span>
      ${sums}${arrowHtml(c, names)}</li>`;
  });
  const hint = game.view.status === "finished" ? "" : esc(t("round_end.stays"));
  return `<section class="round-end" aria-label="${html("round_end.label", { round: report.round })}">
    <h2>${html("round_end.heading", { round: report.round, name: caller })}</h2>
    <ol class="outcomes">${columns.join("")}</ol>
    <p class="hint">${hint}</p></section>`;
}

// -- the tavern --------------------------------------------------------------------------

function captainHtml(end, canChoose, number) {
  if (canChoose) {
    return `<button type="button" class="captain grey" data-one-at="${end}"
      aria-label="${esc(DIRECTIONS[end])}">⚓<span class="label">${esc(t("tavern.one_here"))}</span></button>`;
  }
  return `<span class="captain placeholder" aria-hidden="true">${number ?? ""}</span>`;
}

export function tavernHtml(game) {
  const view = game.view;
  const names = game.players;
  const choosing = !game.watching && view.turn === "me" && view.phase === "direction";
  const slots = view.tavern.map((slot) => {
    const where = slot.number ? html("tavern.position", { number: slot.number }) : esc(t("tavern.no_number"));
    return `<li class="slot">
      <div class="dice-row opponent">${diceHtml(slot.opponent_dice, "opponent", names)}</div>
      <div class="number" aria-label="${where}">${slot.number ?? ""}</div>
      ${cardHtml(slot.card)}
      <div class="dice-row me">${diceHtml(slot.my_dice, "me", names)}</div></li>`;
  });
  const leftNumber = view.direction ? (view.direction === "left" ? 1 : 6) : "";
  const rightNumber = view.direction ? (view.direction === "left" ? 6 : 1) : "";
  const captains = ["me", "opponent"]
    .filter((side) => view[side].trick_used_this_round)
    .map((side) => `<span class="captain ${side}" role="img"
      aria-label="${html("tavern.captain_out", { name: names[side] })}">⚓</span>`)
    .join("");
  const supply = (side) => `${html("tavern.supply", { name: names[side], n: view[side].supply })} ${pips(view[side].supply, side)}`;
  return `<section class="table" aria-label="${esc(t("tavern.label"))}">
    <p class="supply opponent">${supply("opponent")}</p>
    <div class="tavern-row">
      ${captainHtml("left", choosing, leftNumber)}
      <ol class="tavern">${slots.join("")}</ol>
      ${captainHtml("right", choosing, rightNumber)}
    </div>
    <div class="captains-out">${captains}</div>
    <p class="supply me">${supply("me")}</p>
  </section>`;
}

// -- turn controls -----------------------------------------------------------------------

const has = (legal, pred) => legal.some(pred);

function trickCardHtml(trick, legal, disabled) {
  const wild = has(legal, (c) => c.type === "trick" && c.card === trick.id && c.half === "wild");
  const action = has(legal, (c) => c.type === "trick" && c.card === trick.id && c.half === trick.action);
  const card = trick.id;
  return `<div class="trick-card" data-card="${esc(card)}">
    <button type="button" class="half top" data-card="${esc(card)}" data-half="wild"
      ${wild && !disabled ? "" : "disabled"} aria-label="${html("controls.use_wild", { card, wild: ACTIONS.wild })}">${esc(ACTIONS.wild)}</button>
    <button type="button" class="half bottom" data-card="${esc(card)}" data-half="${esc(trick.action)}"
      ${action && !disabled ? "" : "disabled"} aria-label="${html("controls.use_action", { card, action: ACTIONS[trick.action] })}">${esc(ACTIONS[trick.action])}</button>
  </div>`;
}

function chooserHtml(game, ui) {
  const { card, half } = ui.chooser;
  const options = game.view.legal.filter((c) => c.type === "trick" && c.card === card && c.half === half);
  const dice = game.view.roll.dice;
  const buttons = options.map((c, i) => {
    const label = half === "wild" ? t("controls.wild_choice", { nation: NATIONS[c.nation].name })
      : t("controls.adjust_choice", { number: c.die + 1, before: dice[c.die], after: dice[c.die] + c.delta });
    return `<button type="button" data-choice="${i}">${esc(label)}</button>`;
  });
  const question = esc(half === "wild" ? t("controls.wild_question") : t("controls.adjust_question"));
  return `<div class="chooser" role="group" aria-label="${question}"><p>${question}</p>
    ${buttons.join("")}<button type="button" class="secondary" data-cancel>${esc(t("controls.cancel"))}</button></div>`;
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
    <button type="button" data-action="roll" ${canRoll && !busy ? "" : "disabled"}>${esc(t("controls.roll"))}</button>
    <button type="button" data-action="shanghai" ${canShanghai && !busy ? "" : "disabled"}>${esc(t("controls.shanghai"))}</button>
    </div>`);
  if (view.roll) {
    const placing = mine && view.phase === "placement";
    const dice = view.roll.dice.map((v, i) => `<button type="button" class="die big ${view.roll.by}" data-die="${i}"
        ${placing && !busy && !ui.chooser ? "" : "disabled"} aria-label="${html("controls.place", { value: v })}">${v}</button>`);
    const tricks = placing && !view.me.trick_used_this_round
      ? view.me.tricks.map((trick) => trickCardHtml(trick, legal, busy || Boolean(ui.chooser))) : [];
    const who = view.roll.by === "me" ? t("controls.your_roll") : t("controls.their_roll", { name: game.players.opponent });
    const trickRow = tricks.length
      ? `<div class="tricks" aria-label="${esc(t("controls.your_tricks"))}">${tricks.join("")}</div>` : "";
    parts.push(`<div class="rolled" aria-label="${esc(who)}"><span class="label">${html("label", { label: who })}</span>
      ${dice.join("")}${trickRow}</div>`);
    if (placing && ui.chooser) parts.push(chooserHtml(game, ui));
  }
  return `<section class="controls" aria-label="${esc(t("controls.label"))}">${parts.join("")}</section>`;
}

// -- score table and overviews -----------------------------------------------------------

function sailorsListHtml(sailors) {
  const rows = Object.entries(sailors).filter(([, cards]) => cards.length);
  if (!rows.length) return `<p>${esc(t("score.no_sailors"))}</p>`;
  const values = (cards) => cards.map((c) => (c.wild ? t("cards.wild_value", { value: c.value }) : c.value)).join(", ");
  return `<ul>${rows.map(([nation, cards]) => `<li><span class="swatch nation-${nation}"></span>
    ${html("label", { label: NATIONS[nation].name })} ${esc(values(cards))}</li>`).join("")}</ul>`;
}

function toComeHtml(cards) {
  if (!cards.length) return `<p>${esc(t("score.no_cards"))}</p>`;
  const groups = {};
  for (const card of cards) {
    const key = card.kind === "sailor" ? card.nation : "tricks";
    (groups[key] ||= []).push(card.kind === "sailor" ? card.value : ACTIONS[card.action]);
  }
  return `<ul>${Object.entries(groups).map(([key, values]) => `<li>${key === "tricks"
    ? html("label", { label: t("score.tricks") })
    : `<span class="swatch nation-${key}"></span> ${html("label", { label: NATIONS[key].name })}`} ${esc(values.join(", "))}</li>`).join("")}</ul>`;
}

function pointsHtml(game) {
  const p = game.view.projected;
  const rows = Object.keys(NATIONS).map((n) => `<tr><th scope="row">${esc(NATIONS[n].name)}</th>
    <td class="me">${p.me.by_nation[n]}</td><td class="opponent">${p.opponent.by_nation[n]}</td></tr>`);
  return `<table><thead><tr><th></th><th class="me">${esc(game.players.me)}</th>
    <th class="opponent">${esc(game.players.opponent)}</th></tr></thead>
    <tbody>${rows.join("")}<tr><th scope="row">${esc(t("score.unused_tricks"))}</th><td class="me">${p.me.tricks}</td>
    <td class="opponent">${p.opponent.tricks}</td></tr></tbody></table>`;
}

function overviewHtml(id, title, body, ui) {
  const open = ui.overview === id;
  return `<div class="overview" id="overview-${id}" role="dialog" aria-label="${esc(title)}" ${open ? "" : "hidden"}>
    <button type="button" class="close" data-close-overview aria-label="${esc(t("score.close"))}">×</button>
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
    ${esc(NATIONS[r.nation].name)}</th><td class="me">${r.me}</td><td class="opponent">${r.opponent}</td>
    <td class="to-come">${r.remaining_cards} / ${r.remaining_points}</td></tr>`);
  const tricks = table.tricks;
  const toCome = `${esc(t("score.to_come"))}<br><small>${esc(t("score.cards_points"))}</small>`;
  return `<section class="score" aria-label="${esc(t("score.label"))}">
    <table class="score-table">
      <thead><tr><th scope="col">${esc(t("score.crew"))}</th>
        <th scope="col">${trigger("mine", esc(names.me), ui, "me")}</th>
        <th scope="col">${trigger("theirs", esc(names.opponent), ui, "opponent")}</th>
        <th scope="col">${trigger("to-come", toCome, ui)}</th></tr></thead>
      <tbody>${rows.join("")}
        <tr class="tricks-row"><th scope="row">${esc(t("score.tricks"))}</th><td class="me">${tricks.me}</td>
          <td class="opponent">${tricks.opponent}</td><td class="to-come">${tricks.remaining_cards} / ${tricks.remaining_points}</td></tr></tbody>
      <tfoot><tr><th scope="row">${trigger("points", esc(t("score.now")), ui)}</th>
        <td class="me">${view.projected.me.total}</td><td class="opponent">${view.projected.opponent.total}</td><td></td></tr></tfoot>
    </table>
    ${overviewHtml("mine", t("score.sailors_of", { name: names.me }), sailorsListHtml(view.me.sailors), ui)}
    ${overviewHtml("theirs", t("score.sailors_of", { name: names.opponent }), sailorsListHtml(view.opponent.sailors), ui)}
    ${overviewHtml("to-come", t("score.to_come_title"), toComeHtml(table.still_to_come), ui)}
    ${overviewHtml("points", t("score.points_title"), pointsHtml(game), ui)}
  </section>`;
}

// -- the final result --------------------------------------------------------------------

function outcomeText(mine, theirs, names) {
  if (!mine && !theirs) return t("result.nothing");
  if (!theirs) return t("result.keeps", { name: names.me, strength: mine });
  if (!mine) return t("result.keeps", { name: names.opponent, strength: theirs });
  if (mine === theirs) return t("result.equal");
  return mine > theirs ? t("result.weaker", { name: names.me, strength: theirs })
    : t("result.weaker", { name: names.opponent, strength: mine });
}

export function resultHtml(game) {
  const view = game.view;
  const r = view.result;
  if (!r || r.reason === "aborted") return "";
  const names = game.players;
  const rows = Object.keys(NATIONS).map((n) => `<tr><th scope="row">${esc(NATIONS[n].name)}</th>
    <td class="me">${view.me.strength[n]}</td><td class="opponent">${view.opponent.strength[n]}</td>
    <td>${esc(outcomeText(view.me.strength[n], view.opponent.strength[n], names))}</td>
    <td class="me">${r.me.by_nation[n]}</td><td class="opponent">${r.opponent.by_nation[n]}</td></tr>`);
  const title = esc(t("result.title"));
  const points = esc(t("result.points"));
  return `<section class="result" aria-label="${title}"><h2>${title}</h2>
    <table class="list"><thead><tr><th>${esc(t("score.crew"))}</th><th class="me">${esc(names.me)}</th><th class="opponent">${esc(names.opponent)}</th>
      <th>${esc(t("result.outcome"))}</th><th class="me">${points}</th><th class="opponent">${points}</th></tr></thead>
    <tbody>${rows.join("")}<tr><th scope="row">${esc(t("score.unused_tricks"))}</th><td></td><td></td><td>${esc(t("result.point_each"))}</td>
      <td class="me">${r.me.tricks}</td><td class="opponent">${r.opponent.tricks}</td></tr></tbody>
    <tfoot><tr><th scope="row">${esc(t("result.total"))}</th><td></td><td></td><td></td>
      <td class="me total">${r.me.total}</td><td class="opponent total">${r.opponent.total}</td></tr></tfoot></table></section>`;
}

export function recentHtml(game) {
  const recent = game.recent || [];
  if (!recent.length) return "";
  const items = recent.map((a) => `<li class="${a.by}">${html("status.last_action", {
    name: a.by === "me" ? game.players.me : game.players.opponent, action: a.text,
  })}</li>`);
  return `<details class="recent"><summary>${esc(t("recent"))}</summary><ol>${items.join("")}</ol></details>`;
}

// -- around the game: extra day, abort, rematch ------------------------------------------

export function extrasHtml(game) {
  const view = game.view;
  if (game.watching) return "";
  const name = game.players.opponent;
  const parts = [];
  if (game.clock.can_extend) {
    parts.push(`<button type="button" class="secondary" data-extend>${html("extras.extend", { name })}</button>`);
  }
  if (view.legal.some((c) => c.type === "abort")) {
    parts.push(`<button type="button" class="secondary" data-action="abort">${esc(t("extras.abort"))}</button>`);
  }
  const replayLabel = view.status === "active" ? t("extras.steps_so_far") : t("extras.replay");
  parts.push(`<a class="button secondary" href="/games/${game.id}/replay/">${esc(replayLabel)}</a>`);
  parts.push(`<button type="button" class="secondary" data-report-game>${esc(t("extras.report"))}</button>`);
  if (view.status === "active") {
    parts.push(`<button type="button" class="secondary" data-action="resign">${esc(t("extras.resign"))}</button>`);
  } else {
    const offer = game.rematch;
    if (!offer || offer.status === "declined" || offer.status === "cancelled") {
      parts.push(`<button type="button" data-rematch>${esc(t("extras.offer_rematch"))}</button>`);
    } else if (offer.status === "accepted" && offer.game) {
      parts.push(`<a class="button" href="/games/${offer.game}/">${esc(t("extras.go_to_rematch"))}</a>`);
    } else if (offer.by === "me") {
      parts.push(`<span>${html("extras.rematch_offered", { name })}</span>`);
    } else {
      parts.push(`<button type="button" data-accept-rematch="${offer.invitation}">${esc(t("extras.accept_rematch"))}</button>`);
    }
  }
  return `<p class="extras">${parts.join(" ")}</p>`;
}

// -- chat --------------------------------------------------------------------------------

export function chatHtml(game) {
  const names = game.players;
  const items = (game.chat || []).map((m) => `<li class="${m.by}" data-message="${m.id}">
    <strong>${html("label", { label: m.by === "me" ? names.me : names.opponent })}</strong> <span class="text">${esc(m.text)}</span>
    ${!game.watching && m.by === "opponent"
      ? `<button type="button" class="link-button report" data-report-message="${m.id}">${esc(t("chat.report"))}</button>` : ""}</li>`);
  const form = game.watching ? "" : `<form class="chat-form">
    <label for="chat-text" class="visually-hidden">${html("chat.to", { name: names.opponent })}</label>
    <input id="chat-text" name="text" maxlength="500" autocomplete="off" placeholder="${html("chat.placeholder", { name: names.opponent })}">
    <button type="submit">${esc(t("chat.send"))}</button></form>`;
  const empty = `<li class='empty'>${esc(t("chat.empty"))}</li>`;
  const title = esc(t("chat.title"));
  return `<section class="chat" aria-label="${title}"><h2>${title}</h2>
    <ol class="messages-list" aria-live="polite">${items.join("") || empty}</ol>
    ${form}</section>`;
}
