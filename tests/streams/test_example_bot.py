"""The example bot of docs/examples/bot.py, run as a program against a live Daphne and the
worker: with a token alone (no cookie, no HTML) it challenges the computer opponent
Deckhand and plays the whole game through the streams and the command endpoint."""

from __future__ import annotations

import os
import subprocess
import sys

import httpx
import pytest
from django.contrib.auth.hashers import PBKDF2PasswordHasher

from accounts.models import User
from games.models import Game

from ..daphne import ROOT, start_server
from ..helpers.databases import database_url, wait_for_server_sessions_to_end
from ..helpers.games import the_bots
from ..helpers.processes import stop

pytestmark = pytest.mark.django_db(transaction=True)

FAST_BOTS = {"BOT_TICK_SECONDS": "0.05", "BOT_PAUSE_SECONDS": "0"}


@pytest.fixture
def live_site(tmp_path):
    """Daphne and the worker on the test database, the computer opponents quick."""
    the_bots()
    env = {"DATABASE_URL": database_url(), **FAST_BOTS}
    worker = subprocess.Popen(
        [sys.executable, "manage.py", "run_worker", "--name", "stream-bot-worker"],
        cwd=ROOT,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "shanghaien.settings", **env},
        stdout=(tmp_path / "worker.log").open("wb"),
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
    )
    try:
        with start_server(env=env, log=tmp_path / "daphne.log") as (url,):
            yield url
    finally:
        stop(worker)
    wait_for_server_sessions_to_end()


def test_the_example_bot_plays_a_whole_game_against_deckhand(live_site, tmp_path):
    """Bring your own bot, with no cookie and no HTML: a token made with the account's
    password, the account made a bot account with it, then the example plays."""
    sailor = User.objects.create_user("sailor")
    # hashed as the server hashes (the tests' own hasher is MD5: tests/conftest.py)
    hasher = PBKDF2PasswordHasher()
    sailor.password = hasher.encode("a long sea shanty", hasher.salt())
    sailor.save(update_fields=["password"])
    with httpx.Client(base_url=live_site, timeout=30) as api:
        made = api.post(
            "/api/tokens/",
            json={
                "name": "my bot",
                "scopes": ["read", "play", "bot"],
                "username": "sailor",
                "password": "a long sea shanty",
            },
        )
        assert made.status_code == 201, made.text
        raw = made.json()["token"]
        upgraded = api.post("/api/account/bot/", headers={"Authorization": f"Bearer {raw}"})
        assert upgraded.status_code == 200, upgraded.text
        assert not api.cookies  # nothing of a browser's
    sailor.refresh_from_db()
    assert sailor.bot_account
    bot = subprocess.run(
        [sys.executable, str(ROOT / "docs/examples/bot.py"), "--challenge", "Deckhand"]
        + ["--games", "1"],
        env={**os.environ, "SHANGHAIEN_URL": live_site, "SHANGHAIEN_TOKEN": raw},
        capture_output=True,
        text=True,
        timeout=300,
    )
    said = bot.stdout + bot.stderr
    assert bot.returncode == 0, said
    game = Game.objects.get(seats__user=sailor)
    assert game.status == Game.Status.FINISHED, said
    assert f"game {game.pk} over" in bot.stdout
    opponent = game.seats.exclude(user=sailor).get().user
    assert opponent.bot_level  # the computer opponent
    # every command of the bot's came through the API, none by a cookie
    assert game.commands.filter(seat=game.seats.get(user=sailor).seat).exists()
