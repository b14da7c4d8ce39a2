// Rendering the game JSON (see docs/protocol.md) into HTML. Pure functions of the
// game and of the board's local UI state; board.js owns the socket and the clicks.
// Every word comes from words.js.
import { ACTIONS, DIRECTIONS, NATIONS, esc, html, moment, nameHtml, raw, t } from "./words.js";

export function cardLabel(card) {
  if (!card) return t("cards.none");
  if (card.kind === "sailor") return t("cards.sailor", { nation: NATIONS[card.nation].name, value: card.value });
  return t("cards.trick", { wild: ACTIONS.wild, action: ACTIONS[card.action] });
}

export function cardHtml(card, extraClass = "") {
  if (!card) return `<div class="card empty ${extraClass}" role="img" aria-label="${esc(cardLabel(card))}"></div>`;
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

// Where the pips of each face stand on a 3×3 grid (0–8, read row by row).
const FACES = { 1: [4], 2: [0, 8], 3: [0, 4, 8], 4: [0, 2, 6, 8], 5: [0, 2, 4, 6, 8], 6: [0, 2, 3, 5, 6, 8] };

// A die's face drawn with its pips (the label of the die or its button says the number).
export function dieFace(value) {
  const pips = (FACES[value] || []).map((i) => `<circle cx="${6 + (i % 3) * 6}" cy="${6 + Math.floor(i / 3) * 6}" r="2.1"/>`);
  return `<svg class="face" viewBox="0 0 24 24" aria-hidden="true" focusable="false">${pips.join("")}</svg>`;
}

function diceHtml(values, side, names) {
  const name = side === "me" ? names.me : names.opponent;
  return values
    .map((v) => `<span class="die ${side}" role="img" aria-label="${html("cards.die", { name, value: v })}" data-value="${v}">${dieFace(v)}</span>`)
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
  const me = game.watching ? raw(nameHtml(game.players.me)) : t("status.you");
  return `<span class="ratings">${html("status.ratings", {
    me: part("me", me), opponent: part("opponent", raw(nameHtml(game.players.opponent))),
  })}</span>`;
}

function turnHtml(game) {
  const view = game.view;
  const names = game.players;
  if (game.watching) return html("status.watching", { name: raw(nameHtml(view.turn === "me" ? names.me : names.opponent)) });
  if (view.turn !== "me") return html("status.their_turn", { name: raw(nameHtml(names.opponent)) });
  const canShanghai = view.legal.some((c) => c.type === "shanghai");
  const what = {
    turn: canShanghai ? t("status.phases.turn") : t("status.phases.roll_only"),
    direction: t("status.phases.direction"),
    placement: t("status.phases.placement"),
  }[view.phase];
  // with 0 or 1 dice in the supply a roll is not allowed: the view says so
  const must = { no_dice: t("status.phases.no_dice"), one_die: t("status.phases.one_die") }[view.must_shanghai];
  return `<strong>${esc(t("status.your_turn"))}</strong> ${esc(must ?? what)}`;
}

// The tag that names the extra-wild-card variant, with what it means as its title.
export function variantHtml(view) {
  if (!view.extra_wild) return "";
  const title = t("status.variant_title", { wild: ACTIONS.wild, action: ACTIONS.adjust });
  return ` <span class="variant-tag" title="${esc(title)}">${esc(t("status.variant"))}</span>`;
}

export function statusHtml(game, ui) {
  const view = game.view;
  const names = game.players;
  const lines = [];
  if (view.status === "finished") {
    // The sentence comes from the server (games/words.py), the same on every page.
    if (game.outcome) lines.push(`<strong>${esc(game.outcome)}</strong>${variantHtml(view)}`);
    const reason = view.result?.reason;
    if (reason !== "aborted" && reason !== "annulled") {
      if (game.ratings) lines.push(ratingsHtml(game));
      else if (game.rated === false) lines.push(esc(t("status.casual_result")));
    }
  } else {
    const parts = [`${html("status.round", { round: view.round, rounds: view.rounds })}${variantHtml(view)}`];
    if (game.rated !== undefined) parts.push(esc(game.rated ? t("status.rated") : t("status.casual")));
    parts.push(turnHtml(game));
    lines.push(parts.join(esc(t("status.separator"))));
    const clock = game.clock;
    if (clock.deadline) {
      const extra = clock.extended ? ` ${esc(t("clock.extended"))}` : "";
      lines.push(`<span class="clock">${html("clock.left", { left: timeLeft(clock.deadline) })}${extra}</span>`);
    }
    if (clock.kind === "bank" && clock.banks) lines.push(banksHtml(game));
  }
  for (const side of ["opponent", "me"]) {
    for (const h of game.clock.away[side] || []) {
      const away = side === "me" && !game.watching
        ? html("clock.away_me", { start: h.start, end: h.end })
        : html("clock.away", { name: raw(nameHtml(names[side])), start: h.start, end: h.end });
      lines.push(`<span class="away">${away}</span>`);
    }
  }
  // (with a "since your last move" summary on the board, that says it all)
  const last = game.since ? null : (game.recent || []).find((a) => a.by === "opponent");
  if (last) {
    const text = t("status.last_action", { name: names.opponent, action: last.text });
    const stop = /[.!?]$/.test(text) ? "" : t("status.stop");
    lines.push(`<span class="last-action">${html("status.last_action", { name: raw(nameHtml(names.opponent)), action: last.text })}${esc(stop)}</span>`);
  }
  if (ui.connection === "connecting" || ui.connection === "closed") {
    // ("refused": nothing will reconnect; the alert says why)
    const what = ui.connection === "connecting" ? t("connection.connecting") : t("connection.reconnecting");
    lines.push(`<span class="connection">${esc(what)}</span>`);
  }
  return lines.map((l) => `<p>${l}</p>`).join("");
}

// The time left until `iso`, in words (plain text).
// A time bank game: each player's bank, the mover's counted down to their deadline (which
// holds their holidays and any extra day), the other's as their last turn left it.
export function banksHtml(game) {
  const clock = game.clock;
  const mover = game.view.turn;
  const parts = ["me", "opponent"].map((side) => {
    const seconds = side === mover && clock.deadline
      ? Math.max(0, Math.floor((new Date(clock.deadline).getTime() - Date.now()) / 1000))
      : clock.banks[side];
    const name = side === "me" && !game.watching ? esc(t("status.you")) : nameHtml(game.players[side]);
    const running = side === mover ? " running" : "";
    return `<span class="bank ${side}${running}" data-bank-seconds="${String(seconds)}">${html("clock.bank_of", { name: raw(name), left: span(seconds) })}</span>`;
  });
  return `<span class="banks">${[esc(t("clock.bank")), ...parts].join(esc(t("status.separator")))}</span>`;
}

// A length of time as the clock says it: days and hours, hours, or minutes.
export function span(seconds) {
  const hours = Math.floor(seconds / 3600);
  const days = Math.floor(hours / 24);
  if (days > 0) {
    if (hours % 24 === 0) return t("clock.days", { n: days });
    return t("clock.days_hours", { days: t("clock.days", { n: days }), hours: t("clock.hours", { n: hours % 24 }) });
  }
  return hours > 0 ? t("clock.hours", { n: hours }) : t("clock.minutes", { n: Math.ceil(seconds / 60) });
}

export function timeLeft(iso) {
  const ms = new Date(iso).getTime() - Date.now();
  if (ms <= 0) return t("clock.passed");
  const hours = Math.floor(ms / 3600000);
  const days = Math.floor(hours / 24);
  const when = moment(iso);
  const left = days > 0
    ? t("clock.days_hours", { days: t("clock.days", { n: days }), hours: t("clock.hours", { n: hours % 24 }) })
    : hours > 0 ? t("clock.hours", { n: hours }) : t("clock.minutes", { n: Math.ceil(ms / 60000) });
  return t("clock.until", { left, when });
}

// -- the round-end overview --------------------------------------------------------------

// Whether the last round's sharing out is still shown: the view says (until a roll).
export function showsRoundEnd(view) {
  return Boolean(view.last_round && view.round_end);
}

// An arrow from the card to its winner's side (mine below the cards, pointing down; the
// opponent's above, pointing up), or a cross: removed from the game.
const ARROW = '<svg class="arrow-mark" viewBox="0 0 16 24" aria-hidden="true" focusable="false"><path d="M8 2v15"/><path d="M2.5 13.5 8 21l5.5-7.5"/></svg>';
const CROSS = '<svg class="arrow-mark" viewBox="0 0 16 24" aria-hidden="true" focusable="false"><path d="M3 7l10 10M13 7 3 17"/></svg>';

function arrowHtml(outcome, names) {
  if (outcome.to === "me" || outcome.to === "opponent") {
    const name = names[outcome.to];
    return `<span class="arrow to-${outcome.to}" role="img" aria-label="${html("round_end.to", { name })}">${ARROW}<span class="arrow-name" aria-hidden="true">${nameHtml(name)}</span></span>`;
  }
  return `<span class="arrow removed" role="img" aria-label="${esc(t("round_end.removed_label"))}">${CROSS}<span class="arrow-name" aria-hidden="true">${esc(t("round_end.removed"))}</span></span>`;
}

export function roundEndHtml(game) {
  const report = game.view.last_round;
  const names = game.players;
  const caller = report.called_by === "me" ? names.me : names.opponent;
  const columns = report.cards.map((c) => {
    const sums = c.my_neighbours === null ? ""
      : `<span class="sums">${html("round_end.beside", {
        me: raw(`<span class="me">${c.my_neighbours}</span>`),
        opponent: raw(`<span class="opponent">${c.opponent_neighbours}</span>`),
      })}</span>`;
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
    <h2>${html("round_end.heading", { round: report.round, name: raw(nameHtml(caller)) })}</h2>
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

// -- a player's dirty tricks and captain, on their side of the tavern -------------------

// Why a trick card cannot be used this round, in words; the view decides (its `usable`
// and `block`, games/rules/view.py).
function trickStateText(game, side, trick) {
  if (trick.usable) return t("tricks.usable");
  if (trick.block === "won_in_last_round") return t("tricks.won_in_last_round");
  if (trick.block === "game_over") return t("tricks.game_over");
  if (trick.block === "won_this_round") return t("tricks.won_this_round");
  if (side === "me" && !game.watching) return t("tricks.trick_used_me");
  return t("tricks.trick_used", { name: game.players[side] });
}

function trickChipHtml(trick, label, mini = false) {
  const action = esc(ACTIONS[trick.action]);
  const halves = mini ? `<span class="half bottom">${action}</span>`
    : `<span class="half top">${esc(ACTIONS.wild)}</span><span class="half bottom">${action}</span>`;
  return `<span class="trick-chip${mini ? " mini" : ""}" role="img" aria-label="${esc(label)}"
    title="${esc(label)}">${halves}</span>`;
}

// The trick cards of `side`, each marked usable this round or not, and why not. "me"
// gets a panel with a line per card; the opponent (whose cards are public once won) a
// line with how many they hold and a small chip per card.
export function trickPanelHtml(game, side) {
  const view = game.view;
  const tricks = view[side].tricks;
  const name = game.players[side];
  const states = tricks.map((trick) => {
    const block = trick.usable ? null : trick.block;
    const text = trickStateText(game, side, trick);
    const label = t("tricks.card_state", { card: cardLabel({ ...trick, kind: "trick" }), state: text });
    return { trick, block, text, label };
  });
  if (side === "opponent") {
    if (!tricks.length && !view[side].trick_used_this_round) return "";
    const chips = states.map((s) => `<li class="trick-item ${s.block ? "blocked" : "usable"}" data-card="${esc(s.trick.id)}"
      data-block="${s.block ?? ""}">${trickChipHtml(s.trick, s.label, true)}</li>`);
    return `<div class="trick-panel opponent" role="group" aria-label="${html("tricks.of", { name })}">
      ${captainOutHtml(game, side)}<span class="trick-panel-title">${html("tricks.count_of", { name: raw(nameHtml(name)), n: tricks.length })}</span>
      <ul class="trick-list">${chips.join("")}</ul></div>`;
  }
  if (!tricks.length && (view.status === "finished" || game.watching)) return "";
  const title = game.watching ? html("tricks.of", { name }) : esc(t("controls.your_tricks"));
  const unused = view.status === "finished" ? html("tricks.unused_final", { n: tricks.length })
    : html("tricks.unused", { n: tricks.length });
  const count = tricks.length ? ` <span class="trick-count">${unused}</span>` : "";
  const items = states.map((s) => `<li class="trick-item ${s.block ? "blocked" : "usable"}" data-card="${esc(s.trick.id)}"
      data-block="${s.block ?? ""}">${trickChipHtml(s.trick, cardLabel({ ...s.trick, kind: "trick" }))}
      <span class="trick-state"><span class="mark" aria-hidden="true">${s.block ? "✗" : "✓"}</span> ${esc(s.text)}</span>
      ${s.trick.extra ? `<span class="extra-tag">${esc(t("tricks.extra"))}</span>` : ""}</li>`);
  const body = items.length ? `<ul class="trick-list">${items.join("")}</ul>`
    : `<p class="trick-none">${esc(t("tricks.none"))}</p>`;
  // the variant said in words where the cards are, not only in the tag's title
  const variant = view.extra_wild && view.status !== "finished"
    ? `<p class="variant-note">${esc(t("status.variant_title", { wild: ACTIONS.wild, action: ACTIONS.adjust }))}</p>` : "";
  return `<div class="trick-panel me" role="group" aria-label="${title}">${captainOutHtml(game, side)}
    <p class="trick-panel-title"><strong>${game.watching ? html("tricks.of", { name: raw(nameHtml(name)) }) : title}</strong>${count}</p>${body}${variant}</div>`;
}

// A player's coloured captain, standing by the tavern on their side once they used a
// trick this round.
function captainOutHtml(game, side) {
  if (!game.view[side].trick_used_this_round) return "";
  const label = side === "me" && !game.watching ? t("tavern.captain_out_me")
    : t("tavern.captain_out", { name: game.players[side] });
  return `<span class="captain-out ${side}" role="img" aria-label="${esc(label)}" title="${esc(label)}">
    <span class="anchor" aria-hidden="true">⚓</span><span class="note" aria-hidden="true">${esc(t("tavern.captain_note"))}</span></span>`;
}

// The tavern; with `tricks`, each player's trick cards by their side of it (the board;
// the replay and the rules page draw the tavern alone).
export function tavernHtml(game, { tricks = false } = {}) {
  const view = game.view;
  const names = game.players;
  const choosing = !game.watching && has(view.legal, (c) => c.type === "direction");
  const slots = view.tavern.map((slot) => {
    const where = slot.number ? html("tavern.position", { number: slot.number }) : esc(t("tavern.no_number"));
    return `<li class="slot">
      <div class="dice-row opponent">${diceHtml(slot.opponent_dice, "opponent", names)}</div>
      <div class="number" role="img" aria-label="${where}">${slot.number ?? ""}</div>
      ${cardHtml(slot.card)}
      <div class="dice-row me">${diceHtml(slot.my_dice, "me", names)}</div></li>`;
  });
  const leftNumber = view.tavern[0].number ?? "";
  const rightNumber = view.tavern[view.tavern.length - 1].number ?? "";
  const supply = (side) => `${html("tavern.supply", { name: raw(nameHtml(names[side])), n: view[side].supply })} ${pips(view[side].supply, side)}`;
  // Each side: the captain (once out) by the tavern, the dice supply, the trick cards.
  // (the board draws the trick cards and the captain in the trick panels, at the cards)
  const sideHtml = (side) => `<div class="side ${side}">${tricks ? "" : captainOutHtml(game, side)}
      <p class="supply ${side}">${supply(side)}</p></div>`;
  return `<section class="table" aria-label="${esc(t("tavern.label"))}">
    ${sideHtml("opponent")}
    <div class="tavern-row">
      ${captainHtml("left", choosing, leftNumber)}
      <ol class="tavern">${slots.join("")}</ol>
      ${captainHtml("right", choosing, rightNumber)}
    </div>
    ${sideHtml("me")}
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

// The way to the game waiting longest after this one (views.next_game), with how many of
// the player's other games wait (`ui.nextGames`); "" when none does.
export function nextGameHtml(game, ui) {
  if (game.watching || !(ui.nextGames > 0)) return "";
  return `<a class="button next-game-offer" href="/next/?after=${Number(game.id)}" data-next-game>${
    esc(t("next.label", { n: ui.nextGames }))}</a>`;
}

export function controlsHtml(game, ui) {
  const view = game.view;
  if (game.watching || view.status === "finished") return "";
  const legal = view.legal;
  const busy = Boolean(ui.pending);
  const parts = [];
  const canRoll = has(legal, (c) => c.type === "roll");
  const canShanghai = has(legal, (c) => c.type === "shanghai");
  // Waiting for the opponent while other games wait for the player: the way to the next
  // one stands where the turn's buttons were.
  if (view.turn !== "me" && ui.nextGames > 0) parts.push(`<div class="buttons">${nextGameHtml(game, ui)}</div>`);
  else parts.push(`<div class="buttons">
    <button type="button" data-action="roll" ${canRoll && !busy ? "" : "disabled"}>${esc(t("controls.roll"))}</button>
    <button type="button" data-action="shanghai" ${canShanghai && !busy ? "" : "disabled"}>${esc(t("controls.shanghai"))}</button>
    </div>`);
  if (view.roll) {
    const placing = has(legal, (c) => c.type === "place");
    const dice = view.roll.dice.map((v, i) => `<button type="button" class="die big ${view.roll.by}" data-die="${i}"
        ${has(legal, (c) => c.type === "place" && c.die === i) && !busy && !ui.chooser ? "" : "disabled"} aria-label="${html("controls.place", { value: v })}" data-value="${v}">${dieFace(v)}</button>`);
    // the trick cards the rules let the player use now (the view's legal commands)
    const tricks = view.me.tricks.filter((trick) => has(legal, (c) => c.type === "trick" && c.card === trick.id))
      .map((trick) => trickCardHtml(trick, legal, busy || Boolean(ui.chooser)));
    const who = view.roll.by === "me" ? t("controls.your_roll") : t("controls.their_roll", { name: game.players.opponent });
    const trickRow = tricks.length
      ? `<div class="tricks" aria-label="${esc(t("controls.your_tricks"))}">${tricks.join("")}</div>` : "";
    const whoHtml = view.roll.by === "me" ? esc(who) : html("controls.their_roll", { name: raw(nameHtml(game.players.opponent)) });
    parts.push(`<div class="rolled" aria-label="${esc(who)}"><span class="label">${html("label", { label: raw(whoHtml) })}</span>
      ${dice.join("")}${trickRow}</div>`);
    if (placing && ui.chooser) parts.push(chooserHtml(game, ui));
  }
  return `<section class="controls" tabindex="-1" aria-label="${esc(t("controls.label"))}">${parts.join("")}</section>`;
}

// -- score table and overviews -----------------------------------------------------------

// A player's sailors by nation; opened from one nation's number in the score table, that
// nation's line is marked (`focus`).
function sailorsListHtml(sailors, focus = null) {
  const rows = Object.entries(sailors).filter(([, cards]) => cards.length);
  if (!rows.length) return `<p>${esc(t("score.no_sailors"))}</p>`;
  const values = (cards) => cards.map((c) => (c.wild ? t("cards.wild_value", { value: c.value }) : c.value)).join(", ");
  return `<ul>${rows.map(([nation, cards]) => `<li${nation === focus ? ' class="focus" aria-current="true"' : ""}><span class="swatch nation-${nation}"></span>
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
  return `<table><thead><tr><td></td><th class="me">${nameHtml(game.players.me)}</th>
    <th class="opponent">${nameHtml(game.players.opponent)}</th></tr></thead>
    <tbody>${rows.join("")}<tr><th scope="row">${esc(t("score.unused_tricks"))}</th><td class="me">${p.me.tricks}</td>
    <td class="opponent">${p.opponent.tricks}</td></tr></tbody></table>`;
}

function overviewHtml(id, title, body, ui, heading = esc(title)) {
  const open = ui.overview === id;
  return `<div class="overview" id="overview-${id}" role="dialog" aria-label="${esc(title)}" ${open ? "" : "hidden"}>
    <button type="button" class="close" data-close-overview aria-label="${esc(t("score.close"))}">×</button>
    <h2>${heading}</h2>${body}</div>`;
}

// A button that opens an overview window; `key` tells apart two buttons of one window
// (the board gives the focus back to the one that opened it).
function trigger(id, label, ui, cls = "", { key = id, ariaLabel = "" } = {}) {
  const named = ariaLabel ? ` aria-label="${ariaLabel}"` : "";
  return `<button type="button" class="overview-trigger ${cls}" data-overview="${id}" data-trigger="${key}"
    aria-controls="overview-${id}" aria-expanded="${ui.overview === id}"${named}>${label}</button>`;
}

// A total score: the button that opens the window of the points each crew gives now
// (beside each player's name in the board's head).
export function totalHtml(game, side, ui) {
  if (endedWithoutPlay(game.view)) return "";
  const total = game.view.projected[side].total;
  const ariaLabel = html("score.total_button", { n: total, name: game.players[side] });
  return trigger("points", String(total), ui, `${side} total-score`, { key: `points-${side}`, ariaLabel });
}

// The window the totals open, under the board's head.
export function pointsOverviewHtml(game, ui) {
  if (endedWithoutPlay(game.view)) return "";
  return overviewHtml("points", t("score.points_title"), pointsHtml(game), ui);
}

// A game over before anything was played (the view's result.played is false: an abort,
// an annulment or a timeout before play, or nothing counted). Only its sentence is shown.
function endedWithoutPlay(view) {
  return Boolean(view.result && !view.result.played);
}

export function scoreTableHtml(game, ui) {
  const view = game.view;
  if (endedWithoutPlay(view)) return "";
  const names = game.players;
  const table = view.score_table;
  // Each player's number of a nation opens that player's sailors, the nation marked.
  const focus = ui.trigger?.match(/^(mine|theirs)-(.+)$/)?.[2] ?? null;
  const number = (side, nation, value) => {
    if (!value) return String(value);
    const id = side === "me" ? "mine" : "theirs";
    const ariaLabel = html("score.crew_button", { name: names[side], nation: NATIONS[nation].name, value });
    return trigger(id, String(value), ui, `${side} crew-number`, { key: `${id}-${nation}`, ariaLabel });
  };
  const rows = table.nations.map((r) => `<tr><th scope="row"><span class="swatch nation-${r.nation}"></span>
    ${esc(NATIONS[r.nation].name)}</th><td class="me">${number("me", r.nation, r.me)}</td><td class="opponent">${number("opponent", r.nation, r.opponent)}</td>
    <td class="to-come">${r.remaining_cards} / ${r.remaining_points}</td></tr>`);
  const tricks = table.tricks;
  const toCome = `${esc(t("score.to_come"))}<br><small>${esc(t("score.cards_points"))}</small>`;
  return `<section class="score" aria-label="${esc(t("score.label"))}">
    <table class="score-table">
      <thead><tr><th scope="col">${esc(t("score.crew"))}</th>
        <th scope="col">${trigger("mine", nameHtml(names.me), ui, "me")}</th>
        <th scope="col">${trigger("theirs", nameHtml(names.opponent), ui, "opponent")}</th>
        <th scope="col">${trigger("to-come", toCome, ui)}</th></tr></thead>
      <tbody>${rows.join("")}
        <tr class="tricks-row"><th scope="row">${esc(t("score.tricks"))}</th><td class="me">${tricks.me}</td>
          <td class="opponent">${tricks.opponent}</td><td class="to-come">${tricks.remaining_cards} / ${tricks.remaining_points}</td></tr></tbody>
      <tfoot><tr><th scope="row">${esc(t("score.now"))}</th>
        <td class="me">${view.projected.me.total}</td><td class="opponent">${view.projected.opponent.total}</td><td></td></tr></tfoot>
    </table>
    ${overviewHtml("mine", t("score.sailors_of", { name: names.me }), sailorsListHtml(view.me.sailors, focus), ui,
    html("score.sailors_of", { name: raw(nameHtml(names.me)) }))}
    ${overviewHtml("theirs", t("score.sailors_of", { name: names.opponent }), sailorsListHtml(view.opponent.sailors, focus), ui,
    html("score.sailors_of", { name: raw(nameHtml(names.opponent)) }))}
    ${overviewHtml("to-come", t("score.to_come_title"), toComeHtml(table.still_to_come), ui)}
  </section>`;
}

// -- the final result --------------------------------------------------------------------

// A nation's outcome at the end, as the view's result tells it (games/rules/view.py).
function outcomeHtml(crew, view, names) {
  const winner = crew.winner;
  const loser = winner === "me" ? "opponent" : "me";
  if (crew.outcome === "nobody") return esc(t("result.nothing"));
  if (crew.outcome === "tie") return esc(t("result.equal"));
  const name = raw(nameHtml(names[winner]));
  if (crew.outcome === "uncontested") return html("result.keeps", { name, strength: view[winner].strength[crew.nation] });
  return html("result.weaker", { name, strength: view[loser].strength[crew.nation] });
}

export function resultHtml(game) {
  const view = game.view;
  const r = view.result;
  // Aborted and annulled games have no result to add up; one without play has nothing.
  if (!r || r.reason === "aborted" || r.reason === "annulled" || endedWithoutPlay(view)) return "";
  const names = game.players;
  // On a narrow screen the outcome column gives way to a line of its own under each crew
  // (one or the other is shown: CSS), and the names to coloured marks with a key above.
  const rows = Object.keys(NATIONS).map((n) => {
    const outcome = outcomeHtml({ ...r.nations[n], nation: n }, view, names);
    return `<tr class="crew-row"><th scope="row"><span class="swatch nation-${n}"></span> ${esc(NATIONS[n].name)}</th>
    <td class="me">${view.me.strength[n]}</td><td class="opponent">${view.opponent.strength[n]}</td>
    <td class="verdict">${outcome}</td>
    <td class="me">${r.me.by_nation[n]}</td><td class="opponent">${r.opponent.by_nation[n]}</td></tr>
    <tr class="verdict-row"><td colspan="6">${outcome}</td></tr>`;
  });
  const title = esc(t("result.title"));
  const who = (side) => `<th scope="col" class="${side}"><span class="mark" aria-hidden="true">●</span><span class="who">${nameHtml(names[side])}</span></th>`;
  const key = `<p class="result-key" aria-hidden="true"><span class="me">● ${nameHtml(names.me)}</span> <span class="opponent">● ${nameHtml(names.opponent)}</span></p>`;
  return `<section class="result" aria-label="${title}"><h2>${title}</h2>${key}
    <div class="table-scroll"><table class="list result-table"><thead>
      <tr><th scope="col" rowspan="2">${esc(t("score.crew"))}</th><th scope="colgroup" colspan="2" class="group">${esc(t("result.strength"))}</th>
        <th scope="col" rowspan="2" class="verdict">${esc(t("result.outcome"))}</th><th scope="colgroup" colspan="2" class="group">${esc(t("result.points"))}</th></tr>
      <tr>${who("me")}${who("opponent")}${who("me")}${who("opponent")}</tr></thead>
    <tbody>${rows.join("")}<tr><th scope="row">${esc(t("score.unused_tricks"))}</th><td></td><td></td><td class="verdict">${esc(t("result.point_each"))}</td>
      <td class="me">${r.me.tricks}</td><td class="opponent">${r.opponent.tricks}</td></tr></tbody>
    <tfoot><tr><th scope="row">${esc(t("result.total"))}</th><td></td><td></td><td class="verdict"></td>
      <td class="me total">${r.me.total}</td><td class="opponent total">${r.opponent.total}</td></tr></tfoot></table></div></section>`;
}

export function recentHtml(game) {
  const recent = game.recent || [];
  if (!recent.length) return "";
  const items = recent.map((a) => `<li class="${a.by}">${html("status.last_action", {
    name: raw(nameHtml(a.by === "me" ? game.players.me : game.players.opponent)), action: a.text,
  })}</li>`);
  return `<details class="recent"><summary>${esc(t("recent"))}</summary><ol>${items.join("")}</ol></details>`;
}

// -- around the game: extra day, rematch ------------------------------------------------

export function extrasHtml(game, ui = {}) {
  const view = game.view;
  if (game.watching) return "";
  const name = game.players.opponent;
  const parts = [];
  if (game.clock.can_extend) {
    parts.push(`<button type="button" class="secondary" data-extend>${html("extras.extend", { name: raw(nameHtml(name)) })}</button>`);
  }
  const replayLabel = view.status === "active" ? t("extras.steps_so_far") : t("extras.replay");
  parts.push(`<a class="button secondary" href="/games/${game.id}/replay/">${esc(replayLabel)}</a>`);
  // a finished game is analysed (aborted and annulled ones are not): the replay shows it
  if (game.status === "finished") {
    parts.push(`<a class="button secondary" href="/games/${game.id}/replay/#analysis" data-analysis>${esc(t("extras.analysis"))}</a>`);
  }
  // (a guest reports nothing: the server refuses it, so the board offers none)
  if (!game.guest) {
    parts.push(ui.reported?.game ? reportedHtml("game")
      : `<button type="button" class="secondary" data-report-game>${esc(t("extras.report"))}</button>`);
  }
  // a computer opponent sends nothing to block; a bot account's invitations may be blocked
  if (!game.bots?.opponent || game.bots.opponent === "bot" || ui.blocked) {
    parts.push(`<button type="button" class="secondary" data-block>${
      ui.blocked ? html("extras.unblock", { name: raw(nameHtml(name)) }) : html("extras.block", { name: raw(nameHtml(name)) })}</button>`);
  }
  if (view.status === "active") {
    parts.push(`<button type="button" class="secondary" data-action="resign">${esc(t("extras.resign"))}</button>`);
  }
  return `<p class="extras">${parts.join(" ")}</p>`;
}

// Offering, accepting or following a rematch, at the game's end (beside its outcome).
export function rematchHtml(game, ui = {}) {
  if (game.watching || game.view.status === "active") return "";
  const name = game.players.opponent;
  const parts = [];
  const offer = game.rematch;
  if (!offer || offer.status === "declined" || offer.status === "cancelled") {
    parts.push(`<button type="button" data-rematch>${esc(t("extras.offer_rematch"))}</button>`);
    if (ui.commitment) parts.push(commitmentHtml(ui.commitment));
  } else if (offer.status === "accepted" && offer.game) {
    parts.push(`<a class="button" href="/games/${offer.game}/">${esc(t("extras.go_to_rematch"))}</a>`);
  } else if (offer.by === "me") {
    parts.push(`<span>${html("extras.rematch_offered", { name: raw(nameHtml(name)) })}</span>`);
  } else {
    parts.push(`<button type="button" data-accept-rematch="${offer.invitation}">${esc(t("extras.accept_rematch"))}</button>`);
    if (offer.commitment) parts.push(commitmentHtml(offer.commitment));
  }
  return `<p class="rematch">${parts.join(" ")}</p>`;
}

// The server's commitment a new game would answer (docs/fairness.md): its first digits,
// the whole of it in the title and on the copy button (static/js/copy.js).
function commitmentHtml(commitment) {
  return `<span>${esc(t("extras.commitment"))} <span class="commitment"><code title="${esc(commitment)}">${
    esc(commitment.slice(0, 12))}…</code> <button type="button" class="secondary small" data-copy="${
    esc(commitment)}" data-copied="${esc(t("extras.copied"))}" aria-label="${
    esc(t("extras.copy_commitment"))}">${esc(t("extras.copy"))}</button></span></span>`;
}

// -- reporting ---------------------------------------------------------------------------

// The thanks for a report, where the report was made (beside the message or the game's
// report button); the board moves the focus to it.
function reportedHtml(key) {
  return `<span class="reported" role="status" tabindex="-1" data-reported="${esc(key)}">${esc(t("report.thanks"))}</span>`;
}

// The reasons to choose from, each with its words (also what the report says).
export function reportReasons() {
  return {
    abuse: t("report.reasons.abuse"),
    spam: t("report.reasons.spam"),
    cheating: t("report.reasons.cheating"),
    other: t("report.reasons.other"),
  };
}

// The dialog that asks why a chat message (`quote`: its text) or the game is reported.
// The API takes one free text: the chosen reason's words and the details (board.js).
export function reportDialogHtml(kind, quote = "") {
  const title = esc(kind === "message" ? t("report.title_message") : t("report.title_game"));
  const reasons = Object.entries(reportReasons()).map(([key, words]) => `<label class="reason"><input type="radio"
    name="reason" value="${key}"> ${esc(words)}</label>`).join("");
  const quoted = quote ? `<blockquote class="quoted">${esc(quote)}</blockquote>` : "";
  return `<form method="dialog" class="report-form" novalidate>
    <h2 id="report-title">${title}</h2>${quoted}
    <fieldset><legend>${esc(t("report.question"))}</legend>${reasons}</fieldset>
    <label for="report-details">${esc(t("report.details"))}</label>
    <textarea id="report-details" name="details" rows="3" maxlength="900"></textarea>
    <p class="report-error" role="alert" hidden></p>
    <p class="report-buttons"><button type="button" class="secondary" data-report-cancel>${esc(t("report.cancel"))}</button>
      <button type="submit">${esc(t("report.send"))}</button></p></form>`;
}

// -- chat --------------------------------------------------------------------------------

export function chatHtml(game, ui = {}) {
  const names = game.players;
  const reported = ui.reported?.messages ?? [];
  const report = (m) => (reported.includes(m.id) ? reportedHtml(`message-${m.id}`)
    : `<button type="button" class="link-button report" data-report-message="${m.id}">${esc(t("chat.report"))}</button>`);
  const items = (game.chat || []).map((m) => `<li class="${m.by}" data-message="${m.id}">
    <strong>${html("label", { label: raw(nameHtml(m.by === "me" ? names.me : names.opponent)) })}</strong> <span class="text">${esc(m.text)}</span>
    ${!game.watching && m.by === "opponent" ? report(m) : ""}</li>`);
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
