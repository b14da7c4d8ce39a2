"""How games end besides by the rules' own commands, and the clock of the player to move.

The server ends a game on time (``do_timeout``) and for the moderators
(``end_by_server``); a rated game is rated in the transaction that ends it (``rate``).
"""

from __future__ import annotations

from datetime import timedelta

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from ratings import services as ratings
from shanghaien.lib.errors import Conflict, Forbidden

from .. import rules
from ..access import access_game, seating
from ..clock import effective_deadline, next_due, reminder_due
from ..live import broadcast
from ..models import Game
from ..notify import queue as notify
from . import analysis, game_log


def rate(game: Game, players) -> None:
    """A game that just ended changes both ratings, if it was rated and has a result
    (aborted and annulled games have none), and a finished one waits for its analysis."""
    if game.rated and game.status == Game.Status.FINISHED:
        ratings.apply_result(game, players)
    analysis.queue(game)


def end_by_server(game: Game, reason: str, winner: int | None, now=None, note: str = "") -> tuple:
    """End a locked, active game for a reason of the server's (``rules.SYSTEM_ENDINGS``).

    ``note``: the reason a moderator gave, in their words; the ``game_ended`` event keeps
    it (as ``note``, which the rules do not read) for the board and the lists to tell.
    Call inside ``transaction.atomic()`` with the game row locked. Returns the players.
    """
    state = game.rules_state()
    players = seating(game).players
    events = rules.end_game(state, reason, winner)
    if note:
        events[-1]["note"] = note
    for event in events:
        state = rules.evolve(state, event)
    game_log.append_events(game, events, seat=None)
    change = game_log.store_state(game, state, players, now or timezone.now())
    game.save()
    if change.result_arrived:
        rate(game, players)
    version, ids = game.version, [p.pk for p in players]
    transaction.on_commit(lambda: broadcast.game_changed(game.pk, version, players=ids))
    return players


def do_timeout(game_id, now=None) -> bool:
    """End the game if its player to move has run out of time. True if it did."""
    now = now or timezone.now()
    with transaction.atomic():
        game = access_game(None, game_id, lock=True).game
        if game.status != Game.Status.ACTIVE:
            return False
        deadline = effective_deadline(game)
        if deadline is None or deadline > now:
            return False
        late = game.rules_state().turn
        players = end_by_server(game, "timeout", winner=1 - late, now=now)
        notify.timed_out(game, players)
    return True


def do_extend(game_id, user, now=None) -> Game:
    """The player who waits grants the one to move one extra day, once per turn."""
    with transaction.atomic():
        seating = access_game(user, game_id, lock=True, must_play=True)
        game = seating.game
        if game.status != Game.Status.ACTIVE:
            raise Conflict("game_over", _("The game has ended."))
        if game.to_move_id == user.pk:
            raise Forbidden("own_turn", _("Only your opponent can give you an extra day."))
        if seating.opponent.is_computer:
            raise Conflict("bot_has_time", _("The computer never runs out of time."))
        if game.extended:
            raise Conflict("already_extended", _("An extra day was already given for this turn."))
        game.deadline += timedelta(days=1)
        game.extended = True
        game.due_at = next_due(game, effective_deadline(game), now or timezone.now())
        game.save(update_fields=["deadline", "extended", "due_at"])
        ids = [p.pk for p in seating.players]
        transaction.on_commit(
            lambda: broadcast.game_changed(game.pk, game.version, force=True, players=ids)
        )
    return game


def do_due(game_id, now=None) -> str:
    """What the deadline job does for one game whose ``due_at`` has come, in its own
    transaction with the row locked: the timeout, else the turn's reminder, else nothing
    (a holiday moved the clock on); then the next ``due_at``. Returns "timeout",
    "reminder" or "" (also when another worker or a move got there first)."""
    now = now or timezone.now()
    with transaction.atomic():
        game = (
            Game.objects.select_for_update(of=("self",))
            .select_related("to_move")
            .filter(pk=game_id, status=Game.Status.ACTIVE, due_at__lte=now)
            .first()
        )
        if game is None:
            return ""
        deadline = effective_deadline(game)  # the stored moment may be early: recompute
        if deadline is not None and not game.to_move.is_computer and deadline <= now:
            return "timeout" if do_timeout(game.pk, now) else ""
        done = ""
        if deadline is not None and now >= reminder_due(game, deadline):
            done = "reminder" if notify.reminder(game) else ""
        game.due_at = next_due(game, deadline, now)
        game.save(update_fields=["due_at"])
    return done


def reschedule(user_id: int, now=None) -> int:
    """The holidays of ``user_id`` changed: recompute ``due_at`` of the active games
    where they are to move (their clocks are the ones paused). The number of games."""
    now = now or timezone.now()
    changed = 0
    with transaction.atomic():
        games = (
            Game.objects.select_for_update(of=("self",))
            .select_related("to_move")
            .filter(status=Game.Status.ACTIVE, to_move_id=user_id, deadline__isnull=False)
            .order_by("pk")  # locked in one order: two reschedules never deadlock
        )
        for game in games:
            due = next_due(game, effective_deadline(game), now)
            if due != game.due_at:
                game.due_at = due
                game.save(update_fields=["due_at"])
                changed += 1
    return changed
