"""Playing the computer in Chromium: a newcomer signs up, picks a level under "Play the
computer" in the lobby and plays the whole game by clicking, while the bot answers from
a real worker process beside the server, each of its moves pushed to the board; then the
bot takes a rematch at once."""

import os
import random
import subprocess
import sys
import time

import pytest

from games.models import Game

from ..daphne import ROOT
from ..helpers.databases import database_url
from ..helpers.games import the_bots
from ..helpers.processes import stop
from .helpers import board, in_thread, sign_up, version, wait_for_version_above, wait_until_live
from .test_board import act

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

LEVELS = ("deckhand", "boatswain", "captain", "admiral")
# The bots' pace in production is a second to notice the turn and a second's pause;
# here they answer at once, so that a game takes seconds.
FAST_BOTS = {"BOT_TICK_SECONDS": "0.05", "BOT_PAUSE_SECONDS": "0"}
BOT_ANSWERS_WITHIN_MS = 15000


@pytest.fixture
def worker(asgi_server, django_db_blocker, tmp_path_factory):
    """``manage.py run_worker`` on the test database, as production runs it beside the
    servers (every job); yields a function that returns what it printed so far.

    One worker a test, stopped before the test's tables are emptied: a worker left
    running would still be analysing the finished game or playing the rematch's first
    turn, and on PostgreSQL the emptying's TRUNCATE then fails against its transaction."""
    with django_db_blocker.unblock():
        url = database_url()
    log = tmp_path_factory.mktemp("worker") / "worker.log"
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "shanghaien.settings",
        "DATABASE_URL": url,
        "PYTHONUNBUFFERED": "1",
        **FAST_BOTS,
    }
    with log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, "manage.py", "run_worker", "--name", "e2e-worker"],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )

    def said() -> str:
        return log.read_text(errors="replace")[-4000:]

    try:
        yield said
    finally:
        stop(process)


@pytest.mark.parametrize("level", LEVELS)
def test_a_newcomer_plays_the_computer_to_the_end(asgi_server, browser, worker, screenshot, level):
    in_thread(the_bots)
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    name = f"sailor{level}"
    sign_up(page, asgi_server, name)

    panel = page.locator("#computer")
    assert "Play the computer" in panel.inner_text()
    panel.locator(f"input[name=level][value={level}]").check()
    with page.expect_navigation():
        panel.locator("button[type=submit]").click()
    assert "/games/" in page.url, page.url
    wait_until_live(page)
    page.evaluate("window.notReloaded = true")
    game = in_thread(lambda: Game.objects.select_related("to_move").get(seats__user__username=name))
    mine = in_thread(lambda: game.seats.get(user__username=name))
    bot = in_thread(lambda: game.seats.exclude(pk=mine.pk).get().user)
    assert bot.bot_level == level
    assert bot.username in page.inner_text(".board-head h1")

    rng, started, clicks, bot_moves, shot = random.Random(level), time.monotonic(), 0, 0, False
    for _ in range(600):
        state = board(page)
        if state["status"] == "finished":
            break
        if state["turn"] != "me":  # the bot's turn: the worker plays it, the push shows it
            seen = state["version"]
            try:
                page.wait_for_function(
                    "() => { const b = document.getElementById('board');"
                    " return b.dataset.turn === 'me' || b.dataset.status === 'finished'; }",
                    timeout=BOT_ANSWERS_WITHIN_MS,
                )
            except Exception as error:
                raise AssertionError(
                    f"the {level} did not answer on the board (version {seen});"
                    f" the worker said:\n{worker()}"
                ) from error
            assert version(page) > seen
            bot_moves += 1
            opponent_dice = page.locator(".tavern-row .die.opponent").count()
            if not shot and bot_moves >= 6 and opponent_dice >= 2 and board(page)["turn"] == "me":
                shot = True
                screenshot(page, f"computer-{level}-mid-game")
            continue
        before = version(page)
        act(page, rng, set(), lambda *args: None)
        clicks += 1
        wait_for_version_above(page, before)
    else:
        raise AssertionError("the game did not end")
    took = time.monotonic() - started

    page.wait_for_selector(".result")
    status = page.inner_text(".status")
    assert "Game over" in status and "Ratings: you 1500 → " in status, status
    assert page.evaluate("window.notReloaded") is True  # every bot move came by websocket
    totals = [int(page.inner_text(f".result .total.{side}")) for side in ("me", "opponent")]
    screenshot(page, f"computer-{level}-final-score")
    assert errors == []
    assert shot and bot_moves >= 8, (bot_moves, clicks)

    in_thread(game.refresh_from_db)
    assert game.status == Game.Status.FINISHED
    assert game.result_reason == "completed"
    scores = (game.score0, game.score1)
    assert [scores[mine.seat], scores[1 - mine.seat]] == totals
    if totals[0] != totals[1]:
        assert game.winner_id == (mine.user_id if totals[0] > totals[1] else bot.pk)
    print(f"{level}: {clicks} clicks, {bot_moves} bot turns, {took:.1f} s")

    # The computer takes a rematch at once, as it takes an invitation.
    page.click("[data-rematch]")
    rematch = page.locator("a:has-text('Go to the rematch')")
    rematch.wait_for(timeout=10000)
    with page.expect_navigation():
        rematch.click()
    wait_until_live(page)
    assert bot.username in page.inner_text(".board-head h1")
    assert errors == []
    context.close()
