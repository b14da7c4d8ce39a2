"""A visitor plays the computer without signing up, in Chromium: the home page shows the
board and "Play the computer now"; one click makes a guest and a game; the first turns
are clicked on the board while the computer answers from a real worker, the rest are
played through the services as the same guest; then the guest signs up from the banner,
confirms the address and finds the game in the finished list."""

import random
import time
import uuid

import pytest

from games import rules
from games.models import Game
from games.services import commands

from ..helpers.games import the_bots
from .helpers import (
    PASSWORD,
    board,
    in_thread,
    open_confirmation_link,
    wait_for_version_above,
    wait_until_live,
)
from .test_board import act
from .test_play_computer import worker  # noqa: F401 (the worker fixture)

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

SIZES = {"laptop": (1366, 768), "phone": (390, 844), "phone-de": (390, 844)}
CLICKED_TURNS = 6  # turns played by clicking before the services play the rest
BOT_ANSWERS_WITHIN_MS = 15000


def in_view(page, selector: str) -> bool:
    box = page.locator(selector).first.bounding_box()
    viewport = page.viewport_size
    return bool(box) and box["y"] >= 0 and box["y"] + box["height"] <= viewport["height"]


@pytest.mark.parametrize("size", SIZES)
def test_the_home_page_shows_the_board_and_the_button_first(asgi_server, browser, screenshot, size):
    width, height = SIZES[size]
    context = browser.new_context(viewport={"width": width, "height": height})
    if size.endswith("-de"):  # longer words: the same page in German
        context.add_cookies([{"name": "django_language", "value": "de", "url": asgi_server}])
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(asgi_server + "/")
    page.wait_for_selector('#home-board[data-drawn="true"]')
    assert page.locator("#home-board .tavern .slot").count() == 6  # drawn by the board's code
    assert page.locator("#home-board .controls").count() == 1
    assert in_view(page, ".play-now-button"), "the button is below the fold"
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    page.screenshot(path=str(screenshot(page, f"home-{size}").with_name(f"home-{size}-view.png")))
    assert errors == []
    context.close()


def test_a_visitor_plays_the_computer_to_the_end_signs_up_and_keeps_the_game(
    asgi_server,
    browser,
    worker,  # noqa: F811
    screenshot,
    mailbox,
):
    in_thread(the_bots)
    context = browser.new_context(viewport={"width": 1366, "height": 768})
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(asgi_server + "/")
    with page.expect_navigation():
        page.get_by_role("button", name="Play the computer now").click()
    assert "/games/" in page.url, page.url
    wait_until_live(page)
    game = in_thread(lambda: Game.objects.get(pk=int(page.url.rstrip("/").split("/")[-1])))
    guest = in_thread(lambda: game.seats.select_related("user").get(user__bot_level="").user)
    assert guest.username.startswith("Guest-") and guest.is_guest
    assert not game.rated
    assert "Sign up to keep your games" in page.inner_text("main")
    assert page.locator(".chat-form").count() == 0  # no chat against the computer
    screenshot(page, "guest-board-laptop")

    # The first turns by clicking, the computer answering through the worker.
    rng, clicks = random.Random(7), 0
    while clicks < CLICKED_TURNS:
        state = board(page)
        assert state["status"] != "finished"
        if state["turn"] != "me":
            page.wait_for_function(
                "() => { const b = document.getElementById('board');"
                " return b.dataset.turn === 'me' || b.dataset.status === 'finished'; }",
                timeout=BOT_ANSWERS_WITHIN_MS,
            )
            continue
        before = state["version"]
        act(page, rng, set(), lambda *args: None)
        clicks += 1
        wait_for_version_above(page, before)
    page.set_viewport_size({"width": 390, "height": 844})
    screenshot(page, "guest-board-phone")
    page.set_viewport_size({"width": 1366, "height": 768})

    # The rest through the services, as the same guest; the worker plays the computer.
    in_thread(play_to_the_end, game.pk, guest, rng)
    page.wait_for_selector('#board[data-status="finished"]', timeout=BOT_ANSWERS_WITHIN_MS)
    page.wait_for_selector(".result")
    assert "A casual game" in page.inner_text("main") or "casual" in page.inner_text("main")
    screenshot(page, "guest-board-final")

    # Signing up from the banner keeps the game.
    page.get_by_role("link", name="Sign up to keep your games").first.click()
    page.wait_for_selector("#id_username")
    address = "ahab@example.org"
    page.fill("#id_username", "Ahab")
    page.fill("#id_email", address)
    page.fill("#id_password1", PASSWORD)
    page.fill("#id_password2", PASSWORD)
    with page.expect_navigation():
        page.click("main button[type=submit]")
    button = open_confirmation_link(page, asgi_server, address, mailbox)
    with page.expect_navigation():
        button.click()
    page.goto(asgi_server + "/games/finished/")
    assert page.locator(f'main a[href="/games/{game.pk}/"]').count() >= 1, page.inner_text("main")
    assert "Ahab" in page.inner_text("header")
    assert "Sign up to keep your games" not in page.inner_text("body")
    in_thread(guest.refresh_from_db)
    assert guest.username == "Ahab" and not guest.is_guest
    assert errors == []
    context.close()


def play_to_the_end(game_id: int, guest, rng, limit_seconds: float = 120) -> None:
    """The guest's moves, random legal ones, until the game is over."""
    started = time.monotonic()
    while time.monotonic() - started < limit_seconds:
        game = Game.objects.get(pk=game_id)
        if game.status != Game.Status.ACTIVE:
            return
        if game.to_move_id != guest.pk:
            time.sleep(0.05)
            continue
        seat = game.seats.get(user=guest).seat
        command = rules.random_command(game.rules_state(), seat, rng)
        commands.do_command(game_id, guest, command, game.version, uuid.uuid4().hex)
    raise AssertionError("the game did not end in time")
