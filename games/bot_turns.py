"""The computer opponents' turns: the worker plays them through the same write path as
a player's (``services.commands.do_command``), after a short pause, within a few seconds
of the turn passing to the bot.

Any number of workers share the turns. A worker claims one turn at a time by locking
its game's row with ``SELECT … FOR UPDATE SKIP LOCKED``, plays the whole turn and
commits, all in one transaction: another worker skips the locked row and takes the next
turn, so no turn is computed twice. A worker that dies mid-turn loses its connection,
PostgreSQL rolls its transaction back and unlocks the row, and the next worker to look
plays that turn from where it stood. SQLite has no row locks (``select_for_update`` does
nothing there): one worker, as ``make run`` starts it.
"""

from __future__ import annotations

import logging
import random
import time
import uuid
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from shanghaien.lib.errors import ServiceError

from . import bots
from .models import Game
from .rules import as_known
from .services import commands
from .worker_stop import stopping

log = logging.getLogger(__name__)

# The defaults of settings.BOT_TICK_SECONDS and settings.BOT_PAUSE_SECONDS:
BOT_TICK_SECONDS = 1.0  # how often the worker looks for a bot on turn
BOT_PAUSE_SECONDS = 1.0  # a bot waits this long after its turn began, as a person would
COMMANDS_PER_TURN = 8  # a turn is a roll, a direction, a trick and a placement at most
# The default of settings.BOT_ADMIRAL_BUDGET_MS: the admiral's search stops after this many
# milliseconds a command (its row stays locked while it thinks).
BOT_ADMIRAL_BUDGET_MS = 250


def tick_seconds() -> float:
    """How often the worker looks for a bot on turn (settings.BOT_TICK_SECONDS)."""
    return float(getattr(settings, "BOT_TICK_SECONDS", BOT_TICK_SECONDS))


def pause_seconds() -> float:
    """How long a bot waits once its turn began (settings.BOT_PAUSE_SECONDS)."""
    return float(getattr(settings, "BOT_PAUSE_SECONDS", BOT_PAUSE_SECONDS))


def admiral_budget_ms() -> float:
    """How long the admiral searches for one command (settings.BOT_ADMIRAL_BUDGET_MS)."""
    return float(getattr(settings, "BOT_ADMIRAL_BUDGET_MS", BOT_ADMIRAL_BUDGET_MS))


def choose(state, level: str, rng) -> dict:
    """The command of the bot of ``level`` on turn in ``state``: the admiral's search is
    cut short at its budget (``admiral_budget_ms``), the other levels take what they take."""
    if level == "admiral":
        deadline = time.monotonic() + admiral_budget_ms() / 1000
        return bots.choose(state, state.turn, level, rng, deadline=deadline)
    return bots.choose(state, state.turn, level, rng)


def bot_ids() -> list[int]:
    """The computer opponents' accounts: a handful, through their own index (accounts
    migration 0012)."""
    return list(get_user_model().objects.filter(bot_level__gt="").values_list("pk", flat=True))


def bots_to_move(bots: list[int] | None = None):
    """The active games whose player to move is a computer opponent (of ``bots``, by
    default every one).

    The bots first, then their games through the index on (status, to_move): as a join,
    the planner reads every active game, every second.
    """
    bots = bot_ids() if bots is None else bots
    return Game.objects.filter(status=Game.Status.ACTIVE, to_move_id__in=bots)


def play_bot_turns(now=None, pause: float | None = None) -> int:
    """Play the bot turns that began at least ``pause`` seconds before ``now`` (default:
    ``pause_seconds()`` before the start of the run), the longest waiting first, one
    claimed turn at a time; the commands sent.

    A turn that begins during the run (a bot's game against a bot) waits for the next
    run, so a run ends. So does a stop asked of the worker, after the turn in hand.
    """
    now = now or timezone.now()
    pause = pause_seconds() if pause is None else pause
    waiting = bots_to_move(bot_ids()).filter(turn_started_at__lte=now - timedelta(seconds=pause))
    sent, failed = 0, []
    while not stopping:
        played = play_next_turn(waiting.exclude(pk__in=failed), failed)
        if played is None:
            break
        sent += played
    return sent


def play_next_turn(waiting, failed: list | None = None) -> int | None:
    """Claim the longest-waiting turn of ``waiting`` (games a bot has to move) that no
    other worker holds, and play it: the commands sent, None when no turn is left.

    The claim is the lock on the game's row, held until the turn is committed; the
    commands' own transactions become savepoints of this one, and their lock of the
    row is the one held already. A player's resignation or a moderator's action waits
    for the row (a turn takes a fraction of a second) and applies after the turn. The
    boards hear of each of the turn's commands once the turn is committed.

    A turn that fails (not by the rules: a bug, a database error) is rolled back and
    logged; its game's id goes to ``failed`` so that the caller can pass it over for
    the rest of its run, and the next run tries it again.
    """
    claimed = None
    try:
        with transaction.atomic():
            game = (
                waiting.order_by("turn_started_at", "pk")
                .select_for_update(skip_locked=True, of=("self",))  # not the bot's user row
                .select_related("to_move")
                .first()
            )
            if game is None:
                return None
            claimed = game.pk
            log.debug(
                "bot %s plays turn %d of game %s at version %d",
                game.to_move.username,
                game.turn_number,
                game.pk,
                game.version,
                extra={"game": game.pk, "version": game.version, "bot": game.to_move.username},
            )
            return play_turn(game)
    except Exception:
        if claimed is None or failed is None:  # no turn in hand: the job fails
            raise
        log.exception("the bot's turn in game %s failed; the next run tries it again", claimed)
        failed.append(claimed)
        return 0


def play_turn(game: Game, rng=None) -> int:
    """The bot on turn in ``game`` plays until the turn passes (or the game ends)."""
    bot, rng = game.to_move, rng or random.SystemRandom()
    sent = 0
    for _ in range(COMMANDS_PER_TURN):
        if game.status != Game.Status.ACTIVE or game.to_move_id != bot.pk:
            break
        # the table as the bot's player knows it: the deck's order never reaches the bot
        state = as_known(game.rules_state())
        command = choose(state, bot.bot_level, rng)
        try:
            commands.do_command(game.pk, bot, command, game.version, f"bot-{uuid.uuid4()}")
        except ServiceError as error:  # a player's resignation or a moderator came first
            log.info("bot %s in game %s: %s", bot.username, game.pk, error.code)
            break
        sent += 1
        game.refresh_from_db()
    return sent
