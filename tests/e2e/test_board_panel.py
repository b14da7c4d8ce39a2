"""The board's aids for a newcomer, in Chromium: the trick cards always shown by their
owner's side (usable this round or why not), the variant's tag, the forced Shanghai said
in words, the coloured captain at its owner's trick cards, and the total score beside each
name that opens the points window by mouse, keyboard and tap."""

import random
import uuid

import pytest

from games import rules
from games.rules import CARDS

from .helpers import board, in_thread, log_in_by_cookie, version, wait_for_version_above
from .helpers import wait_until_live as live
from .test_board import game_between  # noqa: F401 (a fixture)

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

DESKTOP = {"viewport": {"width": 1280, "height": 900}}
PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True}
NO_TRICKS = ("resign", "abort", "trick")


def drive(game, policy, stop, limit=600):
    """Commands through the services, each ``policy(state, seat)``, until ``stop(state)``."""
    from games.services import commands

    by_seat = {s.seat: s.user for s in game.seats.all()}
    for _ in range(limit):
        game.refresh_from_db()
        state = game.rules_state()
        if stop(state):
            return state
        assert not state.finished, "the game ended before the position was reached"
        seat = state.turn
        command = policy(state, seat)
        commands.do_command(game.pk, by_seat[seat], command, game.version, str(uuid.uuid4()))
    raise AssertionError("the position was not reached")


def seat_of(game, user) -> int:
    return next(s.seat for s in game.seats.all() if s.user_id == user.pk)


def legal(state, seat, kind=None):
    found = [c for c in rules.legal_commands(state, seat) if c["type"] not in NO_TRICKS]
    return [c for c in found if kind is None or c["type"] == kind]


def on_trick_card(state, value) -> bool:
    card_id = state.tavern[state.index_of(value)]
    return card_id is not None and CARDS[card_id].kind == "trick"


def collecting_tricks(collector: int, rng):
    """Nobody plays a trick; ``collector`` puts dice on trick cards, the other keeps off
    them, and a Shanghai comes as soon as the collector holds a trick card by majority."""

    def winning_a_trick(state):
        mine, theirs = state.players[collector].dice, state.players[1 - collector].dice
        return any(
            card and CARDS[card].kind == "trick" and mine[i] > theirs[i]
            for i, card in enumerate(state.tavern)
        )

    def policy(state, seat):
        if state.phase == "turn":
            shanghai, roll = legal(state, seat, "shanghai"), legal(state, seat, "roll")
            if shanghai and (winning_a_trick(state) or not roll):
                return shanghai[0]
            return roll[0]
        if state.phase == "direction":
            return rng.choice(legal(state, seat))
        places = legal(state, seat, "place")
        onto = [c for c in places if on_trick_card(state, state.roll[c["die"]])]
        if seat == collector:
            return (onto or places)[0]
        return ([c for c in places if c not in onto] or places)[0]

    return policy


def never_shanghai_unless_forced(rng):
    def policy(state, seat):
        choices = legal(state, seat)
        rolls = [c for c in choices if c["type"] != "shanghai"]
        return rng.choice(rolls or choices)

    return policy


def anyhow_without_tricks(rng):
    return lambda state, seat: rng.choice(legal(state, seat))


def open_page(browser, base_url, user, game, device=DESKTOP):
    context = browser.new_context(**device)
    log_in_by_cookie(context, base_url, user)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{base_url}/games/{game.pk}/")
    live(page)
    return context, page, errors


def box(page, selector):
    """The element's box; a push may redraw the board between finding it and measuring
    it (then Playwright answers None), so measure the redrawn one."""
    locator = page.locator(selector).first
    for _ in range(20):
        locator.wait_for(state="visible")
        found = locator.bounding_box()
        if found is not None:
            return found
    raise AssertionError(f"{selector} never stayed on the page long enough to be measured")


def test_trick_panel_captain_and_variant_tag(asgi_server, browser, game_between, screenshot):  # noqa: F811
    game, anna, bernd = game_between(extra_wild=True)
    red = seat_of(game, anna)
    rng = random.Random(11)

    # Round 1: the variant's extra card is anna's only trick card, usable from the start.
    context, page, errors = open_page(browser, asgi_server, anna, game)
    tag = page.locator(".status .variant-tag")
    assert tag.inner_text() == "extra wild card"
    assert "each player started with one more trick card" in tag.get_attribute("title")
    # and in words by the cards, for a phone or a screen reader that never hovers
    note = page.locator(".trick-panel.me .variant-note")
    assert note.is_visible() and "each player started with one more trick card" in note.inner_text()
    items = page.locator(".trick-panels .trick-panel.me .trick-item")
    assert items.count() == 1
    assert items.first.get_attribute("data-block") == ""
    assert "usable this round" in items.first.inner_text()
    assert "extra card" in items.first.inner_text()
    opponent = page.locator(".trick-panels .trick-panel.opponent")
    assert "bernd: 1 unused dirty trick" in opponent.inner_text()
    context.close()

    # Later: anna has won a trick card too, has rolled, and both cards are usable.
    def ready(state):
        me = state.players[red]
        return (
            len(me.tricks) >= 2 and state.turn == red and state.phase == "placement"
        ) and not me.trick_used

    held = len(in_thread(drive, game, collecting_tricks(red, rng), ready).players[red].tricks)
    context, page, errors = open_page(browser, asgi_server, anna, game)
    usable = page.locator(".trick-panel.me .trick-item.usable")
    assert usable.count() == held >= 2
    assert page.locator(".trick-panel.me .trick-item.blocked").count() == 0
    assert page.locator(".captain-out").count() == 0
    screenshot(page, "board-panel-tricks-usable")

    # She plays one (its action half): her other cards wait for the next round.
    before = version(page)
    page.locator(".controls .trick-card .half.bottom:enabled").first.click()
    choices = page.locator(".chooser button[data-choice]")
    if choices.count():
        choices.first.click()
    wait_for_version_above(page, before)
    blocked = page.locator(".trick-panel.me .trick-item.blocked")
    assert blocked.count() == held - 1
    for i in range(blocked.count()):
        assert blocked.nth(i).get_attribute("data-block") == "trick_used"
        assert "not this round: you already used a trick" in blocked.nth(i).inner_text()
    # her captain, red and large, stands at her trick cards (not by the dice supply)
    captain = page.locator(".trick-panel.me .captain-out.me")
    assert captain.get_attribute("aria-label") == "Your captain: you used a trick this round"
    anchor = box(page, ".trick-panel.me .captain-out .anchor")
    assert anchor["width"] >= 24 and anchor["height"] >= 24
    assert inside(anchor, box(page, ".trick-panel.me"))
    assert page.locator(".side .captain-out").count() == 0
    assert page.locator(".trick-panel.opponent .captain-out").count() == 0
    screenshot(page, "board-panel-trick-used")
    assert errors == []
    context.close()

    # On bernd's board anna is the opponent (blue): her captain stands at her trick
    # cards; his own card is usable this round, hers are not.
    context, page, errors = open_page(browser, asgi_server, bernd, game)
    captain = page.locator(".trick-panel.opponent .captain-out.opponent")
    assert captain.get_attribute("aria-label") == "anna's captain: a trick was used this round"
    anchor = box(page, ".trick-panel.opponent .captain-out .anchor")
    assert anchor["width"] >= 24 and inside(anchor, box(page, ".trick-panel.opponent"))
    theirs = page.locator(".trick-panel.opponent .trick-item")
    assert theirs.count() == held - 1
    assert theirs.first.get_attribute("data-block") == "trick_used"
    label = theirs.first.locator(".trick-chip").get_attribute("aria-label")
    assert label.endswith("not this round: anna already used a trick")
    assert page.locator(".trick-panel.me .trick-item.usable").count() >= 1  # his own X card
    screenshot(page, "board-panel-opponent-captain")
    context.close()

    context, page, errors = open_page(browser, asgi_server, anna, game, PHONE)
    screenshot(page, "board-panel-phone")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert errors == []
    context.close()

    # The game over: her cards left are never usable, and say why.
    in_thread(drive, game, anyhow_without_tricks(rng), lambda state: state.finished, 2000)
    context, page, errors = open_page(browser, asgi_server, anna, game)
    left = page.locator("#board .trick-panels .trick-panel.me .trick-item")
    assert left.count() >= 1
    reasons = {left.nth(i).get_attribute("data-block") for i in range(left.count())}
    assert reasons <= {"game_over", "won_in_last_round"}
    assert "extra wild card" in page.inner_text(".status")
    screenshot(page, "board-panel-finished")
    assert errors == []
    context.close()


def test_forced_shanghai_and_the_total_score_button(asgi_server, browser, game_between, screenshot):  # noqa: F811
    game, anna, _ = game_between()
    red = seat_of(game, anna)

    def forced(state):
        return state.turn == red and state.phase == "turn" and state.players[red].supply < 2

    state = in_thread(drive, game, never_shanghai_unless_forced(random.Random(5)), forced)
    context, page, errors = open_page(browser, asgi_server, anna, game)
    status = page.inner_text(".status")
    assert "you have only one die left and a roll takes two, so you must call Shanghai" in status
    assert "roll, or call Shanghai" not in status
    assert page.locator(".variant-tag").count() == 0  # no variant in this game
    assert page.locator('[data-action="roll"]').is_disabled()
    assert page.locator('[data-action="shanghai"]').is_enabled()
    # the panel shows her trick cards, or (none yet, as in round 1) how one is won
    held = len(state.players[red].tricks)
    panel = page.locator(".trick-panels .trick-panel.me")
    assert panel.locator(".trick-item.usable").count() == held
    assert ("No trick cards yet" in panel.inner_text()) == (held == 0)
    screenshot(page, "board-panel-forced-shanghai")

    # The total score beside each name is the button: a hovering mouse opens the window…
    window = page.locator("#overview-points")
    total = page.locator('.board-head [data-trigger="points-me"]')
    assert total.evaluate("b => b.tagName") == "BUTTON"
    assert total.inner_text() == str(board_total(page, "me"))
    assert window.is_hidden()
    total.hover()
    window.wait_for(state="visible")
    assert "Points each crew gives right now" in window.inner_text()
    screenshot(page, "board-panel-points-hover")
    page.mouse.move(5, 5)
    window.wait_for(state="hidden")

    # …and so does the keyboard: Enter opens, Escape closes, the focus stays on the button.
    focused = "() => document.activeElement.dataset.trigger || document.activeElement.tagName"
    total.focus()
    page.keyboard.press("Enter")
    window.wait_for(state="visible")
    assert total.get_attribute("aria-expanded") == "true"
    assert page.evaluate(focused) == "points-me"
    page.keyboard.press("Escape")
    window.wait_for(state="hidden")
    assert page.evaluate(focused) == "points-me"
    page.keyboard.press("Space")
    window.wait_for(state="visible")
    page.keyboard.press("Space")  # a second press closes it again
    window.wait_for(state="hidden")
    # the opponent's total opens it too, and the focus goes back to that one
    theirs = page.locator('.board-head [data-trigger="points-opponent"]')
    theirs.focus()
    page.keyboard.press("Enter")
    window.wait_for(state="visible")
    page.keyboard.press("Escape")
    window.wait_for(state="hidden")
    assert page.evaluate(focused) == "points-opponent"
    assert errors == []
    context.close()

    # On a phone, a tap opens it; a tap on the window closes it.
    context, page, errors = open_page(browser, asgi_server, anna, game, PHONE)
    total = page.locator('.board-head [data-trigger="points-me"]')
    total.tap()
    window = page.locator("#overview-points")
    window.wait_for(state="visible")
    screenshot(page, "board-panel-points-phone")
    window.tap()
    window.wait_for(state="hidden")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert board(page)["turn"] == "me"
    assert errors == []
    context.close()


def inside(inner, outer) -> bool:
    return (
        inner["x"] >= outer["x"]
        and inner["y"] >= outer["y"]
        and inner["x"] + inner["width"] <= outer["x"] + outer["width"]
        and inner["y"] + inner["height"] <= outer["y"] + outer["height"]
    )


def board_total(page, side) -> int:
    return page.evaluate(
        "side => JSON.parse(document.getElementById('game-data').textContent)"
        ".view.projected[side].total",
        side,
    )
