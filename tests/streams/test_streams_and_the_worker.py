"""The computer opponent's moves reach the streams though the worker's notices cannot:
with the in-memory channel layer (no Redis: ``make test``, a single process) the worker
is another process, and the streams of a game against a bot look for its moves in the
database, as the game socket does."""

from __future__ import annotations

import os
import random
import uuid

import pytest
from channels.db import database_sync_to_async

from accounts.models import User
from games import bot_turns, rules
from games.live import broadcast
from games.models import Game
from games.services import commands, invitations

from ..helpers.games import the_bots
from .conftest import StreamClient

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        bool(os.environ.get("REDIS_URL")), reason="with Redis the worker's notices arrive"
    ),
]


def game_against_deckhand(player) -> Game:
    """A game of the player against Deckhand, played by the player until the bot is to
    move."""
    the_bots()
    deckhand = User.objects.get(bot_level="deckhand")
    game = invitations.do_invite(player, to=deckhand.username).game
    rng = random.Random(5)
    while True:
        game.refresh_from_db()
        if game.to_move_id != player.pk:
            return game
        state = game.rules_state()
        command = rules.random_command(state, state.turn, rng)
        commands.do_command(game.pk, player, command, game.version, str(uuid.uuid4()))


def worker_turn() -> int:
    """The bot's turn played as the worker plays it, its notices never sent: they went
    to another process's layer."""
    sent, _notices = broadcast.holding(bot_turns.play_bot_turns)(pause=0)
    return sent


async def test_the_bots_move_reaches_the_game_and_account_streams(players, tokens, settings):
    settings.BOT_TICK_SECONDS = 0.05
    game = await database_sync_to_async(game_against_deckhand)(players["anna"])
    board = StreamClient(f"/api/games/{game.pk}/stream/", tokens["anna"])
    assert await board.open() == 200
    first = await board.line()
    assert first["version"] == game.version and first["game"]["view"]["turn"] != "me"
    account = StreamClient("/api/stream/", tokens["anna"])
    assert await account.open() == 200
    assert (await account.line())["type"] == "game_start"
    assert await database_sync_to_async(worker_turn)() > 0
    state = await board.line(timeout=10)
    assert state["type"] == "state" and state["version"] > first["version"]
    if state["game"]["status"] == "active":
        turn = await account.line(timeout=10)
        assert turn["type"] == "your_turn" and turn["version"] > first["version"]
    await board.disconnect()
    await account.disconnect()
