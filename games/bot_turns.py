"""The computer opponents' turns: the worker plays them through the same write path as
a player's (``services.commands.do_command``), after a short pause, within a few seconds
of the turn passing to the bot."""

from __future__ import annotations

import logging
import random
import uuid
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.utils import timezone

from shanghaien.lib.errors import ServiceError

from . import bots
from .models import Game
from .services import commands

log = logging.getLogger(__name__)

# The defaults of settings.BOT_TICK_SECONDS and settings.BOT_PAUSE_SECONDS:
BOT_TICK_SECONDS = 1.0  # how often the worker looks for a bot on turn
BOT_PAUSE_SECONDS = 1.0  # a bot waits this long after its turn began, as a person would
COMMANDS_PER_TURN = 8  # a turn is a roll, a direction, a trick and a placement at most


def tick_seconds() -> float:
    """How often the worker looks for a bot on turn (settings.BOT_TICK_SECONDS)."""
    return float(getattr(settings, "BOT_TICK_SECONDS", BOT_TICK_SECONDS))


def pause_seconds() -> float:
    """How long a bot waits once its turn began (settings.BOT_PAUSE_SECONDS)."""
    return float(getattr(settings, "BOT_PAUSE_SECONDS", BOT_PAUSE_SECONDS))


def bots_to_move():
    """The active games whose player to move is a computer opponent.

    The bots first (a handful of accounts, through their own index, accounts migration
    0012), then their games through the index on (status, to_move): as a join, the
    planner reads every active game, every second.
    """
    bots = get_user_model().objects.filter(bot_level__gt="").values_list("pk", flat=True)
    return Game.objects.filter(status=Game.Status.ACTIVE, to_move_id__in=list(bots))


def play_bot_turns(now=None, pause: float | None = None) -> int:
    """Play every bot turn that began at least ``pause`` seconds ago (default:
    ``pause_seconds()``); the commands sent."""
    now = now or timezone.now()
    pause = pause_seconds() if pause is None else pause
    waiting = (
        bots_to_move()
        .filter(turn_started_at__lte=now - timedelta(seconds=pause))
        .select_related("to_move")
    )
    return sum(play_turn(game) for game in waiting)


def play_turn(game: Game, rng=None) -> int:
    """The bot on turn in ``game`` plays until the turn passes (or the game ends)."""
    bot, rng = game.to_move, rng or random.SystemRandom()
    sent = 0
    for _ in range(COMMANDS_PER_TURN):
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE or game.to_move_id != bot.pk:
            break
        state = game.rules_state()
        command = bots.choose(state, state.turn, bot.bot_level, rng)
        try:
            commands.do_command(game.pk, bot, command, game.version, f"bot-{uuid.uuid4()}")
        except ServiceError as error:  # a player's resignation or a moderator came first
            log.info("bot %s in game %s: %s", bot.username, game.pk, error.code)
            break
        sent += 1
    return sent
