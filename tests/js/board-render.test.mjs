// The board's renderers draw what the view allows and decide nothing themselves.
import assert from "node:assert/strict";
import { test } from "node:test";

import { BOARDS, UI, WORDS, buttons, enabled, gameOf, render } from "./fixtures.mjs";

const {
  cardHtml, chatHtml, controlsHtml, extrasHtml, reportDialogHtml, resultHtml, roundEndHtml,
  scoreTableHtml, showsRoundEnd, statusHtml, tavernHtml, totalHtml, trickPanelHtml,
} = render;

const has = (view, pred) => view.legal.some(pred);

test("a card shows its nation and value, or its trick's two halves, and says so", () => {
  const sailor = cardHtml({ id: "S7", kind: "sailor", nation: "dutch", value: 3 });
  assert.match(sailor, /class="card sailor nation-dutch/);
  assert.match(sailor, new RegExp(`aria-label="${WORDS.nations.dutch.name} sailor, value 3"`));
  assert.match(sailor, /<span class="value" aria-hidden="true">3<\/span>/);
  const trick = cardHtml({ id: "T1", kind: "trick", action: "both" });
  assert.ok(trick.includes(WORDS.actions.wild) && trick.includes(WORDS.actions.both));
  assert.match(cardHtml(null), /class="card empty/);
});

test("the turn's buttons are enabled exactly as the view's legal commands allow", () => {
  for (const [name, view] of Object.entries(BOARDS)) {
    const game = gameOf(name);
    const html = controlsHtml(game, UI);
    if (view.status === "finished") {
      assert.equal(html, "", name);
      continue;
    }
    const [roll] = buttons(html, "data-action", "roll");
    const [shanghai] = buttons(html, "data-action", "shanghai");
    assert.equal(enabled(roll), has(view, (c) => c.type === "roll"), name);
    assert.equal(enabled(shanghai), has(view, (c) => c.type === "shanghai"), name);
    for (const [i, die] of buttons(html, "data-die").entries()) {
      assert.equal(enabled(die), has(view, (c) => c.type === "place" && c.die === i), `${name} die ${i}`);
    }
    // a trick card appears exactly when the rules let it be played now, each half as legal
    const offered = new Set(buttons(html, "data-half").map((tag) => /data-card="([^"]+)"/.exec(tag)[1]));
    const playable = new Set(view.legal.filter((c) => c.type === "trick").map((c) => c.card));
    assert.deepEqual(offered, playable, name);
    for (const tag of buttons(html, "data-half")) {
      const card = /data-card="([^"]+)"/.exec(tag)[1];
      const half = /data-half="([^"]+)"/.exec(tag)[1];
      assert.equal(enabled(tag), has(view, (c) => c.type === "trick" && c.card === card && c.half === half), tag);
    }
    // while a command is on its way nothing can be pressed
    const busy = controlsHtml(game, { ...UI, pending: "x" });
    assert.ok((busy.match(/<button\b[^>]*>/g) ?? []).every((tag) => !enabled(tag)), name);
    // a watcher gets no controls
    assert.equal(controlsHtml({ ...game, watching: true }, UI), "");
  }
  assert.ok(BOARDS.placement_trick.legal.some((c) => c.type === "trick"), "a trick on offer is drawn");
});

test("the tavern's captains ask for a direction only when the rules ask for one", () => {
  for (const name of Object.keys(BOARDS)) {
    const game = gameOf(name);
    const captains = buttons(tavernHtml(game), "data-one-at");
    assert.equal(captains.length, has(game.view, (c) => c.type === "direction") ? 2 : 0, name);
  }
});

test("the trick panel says what the view says of each card", () => {
  for (const name of ["placement_trick", "trick_used", "finished"]) {
    const game = gameOf(name);
    const html = trickPanelHtml(game, "me");
    for (const trick of game.view.me.tricks) {
      const item = new RegExp(`class="trick-item ${trick.usable ? "usable" : "blocked"}" data-card="${trick.id}"\\s+data-block="${trick.block ?? ""}"`);
      assert.match(html, item, `${name} ${trick.id}`);
    }
    assert.equal(html.includes(WORDS.tricks.extra), game.view.me.tricks.some((t) => t.extra), name);
  }
  // the words follow the field, whatever the rest of the view
  const game = gameOf("placement_trick");
  const [trick] = game.view.me.tricks;
  assert.ok(trickPanelHtml(game, "me").includes(WORDS.tricks.usable));
  Object.assign(trick, { usable: false, block: "won_this_round" });
  const blocked = trickPanelHtml(game, "me");
  assert.ok(blocked.includes(WORDS.tricks.won_this_round));
  assert.match(blocked, /data-block="won_this_round"/);
  trick.block = "trick_used";
  assert.ok(trickPanelHtml(game, "me").includes(WORDS.tricks.trick_used_me));
  trick.extra = false;
  game.view.me.tricks = [trick];
  assert.ok(!trickPanelHtml(game, "me").includes(WORDS.tricks.extra));
});

test("the status tells a player who must call Shanghai, as the view says", () => {
  const game = gameOf("one_die");
  assert.ok(statusHtml(game, UI).includes(WORDS.status.phases.one_die));
  game.view.must_shanghai = "no_dice";
  const none = statusHtml(game, UI);
  assert.ok(none.includes(WORDS.status.phases.no_dice) && !none.includes(WORDS.status.phases.one_die));
  game.view.must_shanghai = null;
  const free = statusHtml(game, UI);
  assert.ok(!free.includes(WORDS.status.phases.no_dice) && !free.includes(WORDS.status.phases.one_die));
  assert.ok(!statusHtml(gameOf("start"), UI).includes(WORDS.status.phases.one_die));
});

test("the score table shows both crews, what is to come and the totals", () => {
  const game = gameOf("round_end");
  const html = scoreTableHtml(game, UI);
  for (const row of game.view.score_table.nations) {
    assert.ok(html.includes(WORDS.nations[row.nation].name));
    assert.ok(html.includes(`${row.remaining_cards} / ${row.remaining_points}`));
  }
  const { me, opponent } = game.view.projected;
  assert.ok(html.includes(`<td class="me">${me.total}</td><td class="opponent">${opponent.total}</td>`));
  // the game score beside each name opens the points window
  assert.ok(totalHtml(game, "me", UI).includes(`data-overview="points"`));
  assert.ok(totalHtml(game, "me", UI).includes(`>${me.total}</button>`));
  assert.ok(totalHtml(game, "opponent", UI).includes(`>${opponent.total}</button>`));
  // a game over before anything was played has no table (the view's result.played)
  assert.equal(scoreTableHtml(gameOf("resigned_at_once"), UI), "");
  assert.notEqual(scoreTableHtml(gameOf("finished"), UI), "");
});

test("the round end is shown while the view says it is the news, card by card", () => {
  for (const [name, view] of Object.entries(BOARDS)) {
    assert.equal(showsRoundEnd(view), Boolean(view.last_round && view.round_end), name);
  }
  const game = gameOf("round_end");
  const html = roundEndHtml(game);
  const caller = game.view.last_round.called_by === "me" ? "anna" : "bernd";
  assert.ok(html.includes(`title="${caller}"`));
  assert.equal((html.match(/<li class="outcome/g) ?? []).length, 6);
  for (const c of game.view.last_round.cards) assert.ok(html.includes(`data-reason="${c.reason}"`));
});

test("the final result tells each nation's outcome from the view", () => {
  const game = gameOf("finished");
  const html = resultHtml(game);
  const nations = game.view.result.nations;
  const count = (outcome) => Object.values(nations).filter((c) => c.outcome === outcome).length;
  const cells = html.match(/<tr class="verdict-row"><td colspan="6">[\s\S]*?<\/td>/g);
  assert.equal(cells.length, Object.keys(WORDS.nations).length);
  assert.equal(cells.filter((c) => c.includes(WORDS.result.equal)).length, count("tie"));
  const nothing = cells.filter((c) => c.endsWith(`>${WORDS.result.nothing}</td>`)).length;
  assert.equal(nothing, count("nobody"));
  // a changed outcome in the view changes the words, whatever the strengths
  const [nation] = Object.keys(nations);
  nations[nation] = { outcome: "tie", winner: null };
  assert.ok(resultHtml(game).match(/<tr class="verdict-row">[\s\S]*?<\/tr>/g)[0].includes(WORDS.result.equal));
  assert.equal(resultHtml(gameOf("resigned_at_once")), "");
});

test("a finished game links its analysis; a game under way or called off does not", () => {
  const link = '<a class="button secondary" href="/games/7/replay/#analysis" data-analysis>';
  assert.ok(extrasHtml(gameOf("finished")).includes(link));
  assert.ok(extrasHtml(gameOf("finished")).includes(WORDS.extras.analysis));
  assert.ok(!extrasHtml(gameOf("start")).includes("#analysis"));
  assert.ok(!extrasHtml(gameOf("resigned_at_once", { status: "aborted" })).includes("#analysis"));
});

test("a report is thanked where it was made", () => {
  const chat = [{ id: 31, by: "opponent", text: "hi" }, { id: 32, by: "opponent", text: "again" }];
  const game = gameOf("start", { chat });
  const before = chatHtml(game, UI);
  assert.equal(buttons(before, "data-report-message").length, 2);
  const after = chatHtml(game, { ...UI, reported: { game: false, messages: [31] } });
  assert.deepEqual(buttons(after, "data-report-message"), ['<button type="button" class="link-button report" data-report-message="32">']);
  const line = after.match(/<li class="opponent" data-message="31">[\s\S]*?<\/li>/)[0];
  assert.ok(line.includes(WORDS.report.thanks) && line.includes('role="status"'));
  assert.equal(buttons(extrasHtml(game, {}), "data-report-game").length, 1);
  const thanked = extrasHtml(game, { reported: { game: true, messages: [] } });
  assert.equal(buttons(thanked, "data-report-game").length, 0);
  assert.ok(thanked.includes(WORDS.report.thanks));
});

test("the report dialog offers each reason, the details and its two buttons", () => {
  const html = reportDialogHtml("message", "you <b>lose</b>");
  for (const [key, words] of Object.entries(WORDS.report.reasons)) {
    assert.match(html, new RegExp(`<input type="radio"\\s+name="reason" value="${key}">\\s*${words}</label>`));
  }
  assert.ok(html.includes(WORDS.report.title_message) && html.includes(WORDS.report.details));
  assert.ok(html.includes("you &lt;b&gt;lose&lt;/b&gt;"));
  assert.equal(buttons(html, "data-report-cancel").length, 1);
  assert.equal(buttons(html, "type", "submit").length, 1);
  assert.ok(reportDialogHtml("game").includes(WORDS.report.title_game));
});

test("a hostile name or message is text everywhere, never markup", () => {
  const hostile = '<img src=x onerror="alert(1)">';
  const players = { me: hostile, opponent: `${hostile}2` };
  for (const name of Object.keys(BOARDS)) {
    const chat = [{ id: 1, by: "opponent", text: hostile }, { id: 2, by: "me", text: hostile }];
    const recent = [{ by: "opponent", text: hostile }];
    const game = gameOf(name, { players, chat, recent, clock: { deadline: null, extended: false, can_extend: true, away: { opponent: [{ start: "a", end: "b" }] } } });
    const shown = [
      statusHtml(game, UI), tavernHtml(game, { tricks: true }), controlsHtml(game, UI),
      trickPanelHtml(game, "me"), trickPanelHtml(game, "opponent"), scoreTableHtml(game, UI),
      resultHtml(game), chatHtml(game, UI), extrasHtml(game, {}), reportDialogHtml("message", hostile),
      render.recentHtml(game), game.view.last_round ? roundEndHtml(game) : "",
      statusHtml({ ...game, watching: true }, UI),
    ].join("");
    assert.ok(!/<img/i.test(shown), name);
    assert.ok(shown.includes("&lt;img src=x onerror=&quot;alert(1)&quot;&gt;"), name);
  }
});

test("a guest's board offers no report (the server refuses a guest's)", () => {
  assert.ok(extrasHtml(gameOf("finished")).includes("data-report-game"));
  assert.ok(!extrasHtml(gameOf("finished", { guest: true })).includes("data-report-game"));
  assert.ok(!extrasHtml(gameOf("start", { guest: true })).includes("data-report-game"));
});

test("a game score's button counts its points in the language's forms", () => {
  const game = gameOf("round_end");
  game.view.projected.me.total = 1;
  game.view.projected.opponent.total = 2;
  assert.ok(totalHtml(game, "me", UI).includes('aria-label="1 point now for anna'));
  assert.ok(totalHtml(game, "opponent", UI).includes('aria-label="2 points now for bernd'));
});

test("a time bank game shows both banks in each side's colour, the mover's running down", () => {
  const name = Object.keys(BOARDS).find((n) => BOARDS[n].status !== "finished" && BOARDS[n].turn === "me");
  const deadline = new Date(Date.now() + (2 * 24 + 3) * 3600 * 1000 + 30000).toISOString();
  const clock = {
    kind: "bank", deadline, extended: false, can_extend: false, away: {},
    bank: { start_hours: 72, increment_hours: 24, cap_hours: 168 },
    banks: { me: 72 * 3600, opponent: 50 * 3600 },
  };
  const shown = statusHtml(gameOf(name, { clock }), UI);
  assert.match(shown, /class="bank me running" data-bank-seconds="18\d{4}"/);
  assert.match(shown, /class="bank opponent" data-bank-seconds="180000"/);
  assert.ok(shown.includes(WORDS.clock.bank));
  const days = render.span(50 * 3600);
  assert.ok(shown.includes(days) && days.includes("2"), days);
  const plain = statusHtml(gameOf(name, { clock: { ...clock, kind: "days", bank: null, banks: null } }), UI);
  assert.ok(!plain.includes('class="bank'));
});
