"""The next game, in Chromium: after a move the board offers the next waiting game (the
count kept live, no reload), and the header's button takes the player through three
waiting games, the one waiting longest first; a private note seen by its author only.
Screenshots of the header and the turn box at 1366×768 and 390×844, in English and German."""

from __future__ import annotations

import random
import re
from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.models import User
from games import rules
from games.models import Game
from games.services import invitations

from .helpers import in_thread, log_in_by_cookie, wait_until_live
from .test_board_panel import drive

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

WIDE = {"viewport": {"width": 1366, "height": 768}}
PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True}


def placing(seat):
    """``seat`` to place a die, the round's direction chosen: one click ends the turn."""

    def stop(state):
        if state.turn != seat:
            return False
        kinds = {c["type"] for c in rules.legal_commands(state, seat)}
        return "place" in kinds and "direction" not in kinds

    return stop


def plainly(rng):
    def policy(state, seat):
        legal = rules.legal_commands(state, seat)
        return rng.choice([c for c in legal if c["type"] not in ("resign", "abort", "trick")])

    return policy


def three_waiting(language="en"):
    """anna and three opponents; three games waiting for anna, each at a die to place:
    the turn of the one against carl began first, then bernd's, then dora's."""
    anna = User.objects.create_user("anna", password="x", language=language)
    others = [User.objects.create_user(n, password="x") for n in ("bernd", "carl", "dora")]
    now = timezone.now()
    ages = {"bernd": timedelta(hours=2), "carl": timedelta(hours=5), "dora": timedelta(minutes=3)}
    games = {}
    for number, other in enumerate(others):
        invitation = invitations.do_invite(anna, to=other.username)
        game = invitations.do_accept_invitation(invitation.pk, other)
        seat = next(s.seat for s in game.seats.all() if s.user_id == anna.pk)
        drive(game, plainly(random.Random(number)), placing(seat))
        Game.objects.filter(pk=game.pk).update(turn_started_at=now - ages[other.username])
        games[other.username] = game
    return anna, games


def header_count(page) -> str:
    return page.get_attribute("#next-game", "data-waiting")


def shoot(page, screenshot, name):
    """The page (its header and the turn box) as the player sees it on the screen."""
    path = screenshot(page, name)
    page.screenshot(path=str(path).replace(".png", "-screen.png"))


@pytest.mark.parametrize(
    ("language", "device"), [("en", WIDE), ("de", PHONE)], ids=["en-wide", "de-phone"]
)
def test_after_a_move_the_board_offers_the_next_game_and_the_header_walks_oldest_first(
    asgi_server, browser, screenshot, language, device
):
    anna, games = in_thread(three_waiting, language)
    oldest, middle, newest = games["carl"], games["bernd"], games["dora"]
    context = browser.new_context(**device)
    log_in_by_cookie(context, asgi_server, anna)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    tag = f"{language}-{device['viewport']['width']}"

    # the header's button on the lobby: three waiting, to the one waiting longest
    page.goto(asgi_server + "/")
    assert header_count(page) == "3"
    assert page.locator("#next-game .count").inner_text() == "3"
    assert page.title().startswith("(3) ")
    shoot(page, screenshot, f"next-game-lobby-{tag}")
    visited = []
    for _ in range(4):
        with page.expect_navigation():
            page.locator("#next-game").click()
        wait_until_live(page)
        visited.append(int(re.search(r"/games/(\d+)/", page.url).group(1)))
    assert visited == [oldest.pk, middle.pk, newest.pk, oldest.pk]  # and round again

    # on the oldest, the player places a die: the turn passes, the board offers the next
    page.wait_for_selector(".controls button[data-die]:not([disabled])")
    assert page.locator(".next-game-offer").count() == 0  # her turn: the controls stand
    shoot(page, screenshot, f"next-game-board-before-{tag}")
    page.locator(".controls button[data-die]:not([disabled])").first.click()
    offer = page.locator(".turn .next-game-offer")
    offer.wait_for()
    page.wait_for_function("() => document.getElementById('next-game').dataset.waiting === '2'")
    expected = (
        "Next game (2 games waiting)" if language == "en" else "Nächste Partie (2 Partien warten)"
    )
    page.wait_for_function(
        "text => document.querySelector('.turn .next-game-offer').textContent.trim() === text",
        arg=expected,
    )
    assert page.title().startswith("(2) ")
    assert page.locator(".controls button[data-action=roll]").count() == 0
    shoot(page, screenshot, f"next-game-board-offer-{tag}")
    with page.expect_navigation():
        offer.click()
    assert page.url.endswith(f"/games/{middle.pk}/")
    assert errors == []
    context.close()


def test_a_note_is_seen_by_its_author_only(asgi_server, browser, screenshot):
    anna, games = in_thread(three_waiting)
    game = games["bernd"]
    bernd = in_thread(User.objects.get, username="bernd")
    carl = in_thread(User.objects.get, username="carl")
    pages = {}
    for user in (anna, bernd, carl):
        context = browser.new_context(**WIDE)
        log_in_by_cookie(context, asgi_server, user)
        pages[user.username] = context.new_page()
        pages[user.username].goto(f"{asgi_server}/games/{game.pk}/")
        wait_until_live(pages[user.username])
    frames = {name: [] for name in pages}
    for name, page in pages.items():
        page.on(
            "websocket",
            lambda ws, name=name: ws.on("framereceived", lambda f: frames[name].append(f)),
        )
    secret = "Bernd <i>bluffs</i> when he rolls twice"
    mine = pages["anna"]
    mine.fill("#note-text", secret)
    mine.click("#note button[type=submit]")
    mine.wait_for_selector("#note .note-status:has-text('Note saved.')")
    shoot(mine, screenshot, "note-saved-en-1366")
    # a move: every socket gets its frame; then everyone loads the board afresh
    mine.locator(".controls button[data-die]:not([disabled])").first.click()
    for page in pages.values():
        page.wait_for_function("() => document.getElementById('board').dataset.turn !== 'none'")
    pages["bernd"].wait_for_function("() => document.getElementById('board').dataset.turn === 'me'")
    for page in pages.values():
        page.reload()
        wait_until_live(page)
    assert mine.input_value("#note-text") == secret
    assert pages["bernd"].input_value("#note-text") == ""
    assert pages["carl"].locator("#note").count() == 0
    for name in ("bernd", "carl"):
        assert "bluffs" not in pages[name].content()
        assert "bluffs" not in pages[name].request.get(f"{asgi_server}/api/games/{game.pk}/").text()
        assert all("bluffs" not in str(f) for f in frames[name]), name
    assert all("bluffs" not in str(f) for f in frames["anna"])  # not even to its author
    assert "bluffs" in mine.request.get(f"{asgi_server}/api/games/{game.pk}/note/").text()
