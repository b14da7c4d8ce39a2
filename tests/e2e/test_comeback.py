"""Coming back to a game, in Chromium: the "since your last move" summary with the new
dice and the new round end marked, gone once the player moves; the keyboard focus kept
through a roll and a placement; the one live region telling the opponent's move; and
blocking the opponent from the board."""

import random
import uuid

import pytest

from accounts.models import Block
from games import rules

from .helpers import api_command, in_thread, log_in_by_cookie, version, wait_for_version_above
from .helpers import wait_until_live as live
from .test_board import game_between  # noqa: F401 (a fixture)
from .test_board_panel import DESKTOP, PHONE, drive, seat_of

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def plainly(rng, shanghai_by=None):
    """No tricks, no giving up; Shanghai only when it must come, or at once by
    ``shanghai_by`` once they may."""

    def policy(state, seat):
        legal = [
            c
            for c in rules.legal_commands(state, seat)
            if c["type"] not in ("resign", "abort", "trick")
        ]
        kinds = {c["type"] for c in legal}
        if "shanghai" in kinds and ("roll" not in kinds or seat == shanghai_by):
            return {"type": "shanghai"}
        if "roll" in kinds:
            return {"type": "roll"}
        return rng.choice(legal)

    return policy


def open_board(browser, base_url, user, game, device=DESKTOP):
    context = browser.new_context(**device)
    log_in_by_cookie(context, base_url, user)
    page = context.new_page()
    page.goto(f"{base_url}/games/{game.pk}/")
    live(page)
    return context, page


def test_the_summary_marks_the_new_dice_until_the_player_moves(
    asgi_server,
    browser,
    game_between,  # noqa: F811
    screenshot,
):
    game, anna, bernd = game_between()
    red, blue = seat_of(game, anna), seat_of(game, bernd)

    def ready(state):  # bernd's dice on the table in round 2 or later, anna to roll
        return (
            state.round >= 2
            and state.turn == red
            and state.phase == "turn"
            and state.players[blue].placed >= 2
            and state.players[red].supply >= 2
        )

    in_thread(drive, game, plainly(random.Random(4)), ready)
    for name, device in (("desktop", DESKTOP), ("phone", PHONE)):
        context, page = open_board(browser, asgi_server, anna, game, device)
        lines = page.locator(".since li").all_inner_texts()
        assert lines and all(line.startswith("bernd ") for line in lines), lines
        assert any("placed the" in line for line in lines), lines
        new = page.locator(".die.opponent.new")
        assert new.count() >= 1
        assert "new since your last move" in new.first.get_attribute("aria-label")
        assert page.locator(".die.me.new").count() == 0
        assert page.locator(".status .last-action").count() == 0  # the summary says it
        screenshot(page, f"comeback-summary-{name}")
        context.close()
    context, page = open_board(browser, asgi_server, anna, game)
    before = version(page)
    page.click("button[data-action=roll]")
    wait_for_version_above(page, before)
    assert page.locator(".since").count() == 0  # anna moved: the summary is gone
    assert page.locator(".die.new").count() == 0
    context.close()


def test_an_opponent_s_shanghai_is_told_and_the_round_end_marked_new(
    asgi_server,
    browser,
    game_between,  # noqa: F811
    screenshot,
):
    game, anna, bernd = game_between()
    red, blue = seat_of(game, anna), seat_of(game, bernd)

    def after_bernd_s_shanghai(state):
        report = state.last_round
        return (
            report is not None
            and report.called_by == blue
            and state.turn == red
            and state.roll is None
            and not state.players[red].placed
        )

    in_thread(drive, game, plainly(random.Random(2), shanghai_by=blue), after_bernd_s_shanghai)
    context, page = open_board(browser, asgi_server, anna, game, PHONE)
    text = page.inner_text(".since")
    assert "bernd called Shanghai!" in text and "is shared out:" in text
    assert "starts; you begin" in text
    assert page.locator(".round-end.new .new-tag").count() == 1
    # no die of anna's placed yet in this round: a Shanghai is not offered
    status = page.inner_text(".status")
    assert "roll (Shanghai once two of your dice are placed this round)" in status
    assert "roll, or call Shanghai" not in status
    screenshot(page, "comeback-shanghai-phone")
    context.close()


def test_the_keyboard_keeps_its_place_and_the_live_region_tells_the_opponent_s_move(
    asgi_server,
    browser,
    game_between,  # noqa: F811
):
    game, anna, bernd = game_between()
    red = seat_of(game, anna)

    def anna_rolls_mid_round(state):
        return (
            state.turn == red
            and state.phase == "turn"
            and state.direction is not None
            and state.players[red].supply >= 2
        )

    in_thread(drive, game, plainly(random.Random(6)), anna_rolls_mid_round)
    context, page = open_board(browser, asgi_server, anna, game)
    for _ in range(80):  # the Roll button is reachable with Tab alone
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.dataset.action") == "roll":
            break
    else:
        raise AssertionError("Tab never reached the Roll button")
    before = version(page)
    page.keyboard.press("Enter")
    wait_for_version_above(page, before)
    # the roll's dice are where the focus went: Enter places the first one
    assert page.evaluate("document.activeElement.dataset.die") == "0"
    before = version(page)
    page.keyboard.press("Enter")
    wait_for_version_above(page, before)
    focused = page.evaluate("document.activeElement.className")
    assert focused == "controls", f"the focus went to {focused!r}"
    # bernd moves on the server: the one live region says what he did and whose turn it is
    announcer = page.locator("#board-announcer")
    game.refresh_from_db()
    api_command(asgi_server, bernd, game, {"type": "roll"}, str(uuid.uuid4()))
    page.wait_for_function(
        "() => document.getElementById('board-announcer').textContent.includes('bernd rolled')"
    )
    assert page.locator("[aria-live]").count() == 2  # this region and the chat's list
    game.refresh_from_db()
    api_command(asgi_server, bernd, game, {"type": "place", "die": 0}, str(uuid.uuid4()))
    page.wait_for_function(
        "() => document.getElementById('board-announcer').textContent.endsWith('Your turn.')"
    )
    assert "bernd placed the" in announcer.text_content()
    context.close()


def test_blocking_the_opponent_from_the_board(
    asgi_server,
    browser,
    game_between,  # noqa: F811
):
    game, anna, bernd = game_between()
    context, page = open_board(browser, asgi_server, anna, game)
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("button[data-block]")
    page.wait_for_selector("p.alert:has-text('You blocked bernd.')")
    assert in_thread(Block.objects.filter(user=anna, blocked=bernd).exists)
    page.reload()
    live(page)
    assert page.inner_text("button[data-block]") == "Unblock bernd"
    page.click("button[data-block]")  # no question to lift it
    page.wait_for_selector("p.alert:has-text('You unblocked bernd.')")
    assert not in_thread(Block.objects.filter(user=anna, blocked=bernd).exists)
    assert page.inner_text("button[data-block]") == "Block bernd"
    context.close()
