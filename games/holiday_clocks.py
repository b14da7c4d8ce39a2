"""A player's holidays move the clocks of their games: the boards are told at once.

A holiday is declared or cancelled in accounts (or changed in the admin), which knows
nothing of games; the games listen for the change and announce every active game of
that player as changed outside its event log (``force``), so that each open board, and
the read a socket process keeps of it, shows the new deadline and "away" note; and the
stored time the deadline job next looks at those games (``Game.due_at``) is recomputed.
"""

from __future__ import annotations

from django.db import transaction
from django.db.models.signals import post_delete, post_save

from accounts.models import Holiday

from .live import broadcast
from .models import Game, Seat
from .services import endings


def _announce(user_id: int) -> None:
    active = Seat.objects.filter(user_id=user_id, game__status=Game.Status.ACTIVE)
    games = dict(active.values_list("game_id", "game__version"))
    players: dict[int, list[int]] = {game_id: [] for game_id in games}
    for game_id, player in Seat.objects.filter(game_id__in=games).values_list("game_id", "user_id"):
        players[game_id].append(player)
    for game_id, version in games.items():
        broadcast.game_changed(game_id, version, force=True, players=players[game_id])


def holidays_changed(sender, instance: Holiday, **kwargs) -> None:
    user_id = instance.user_id
    # In the holiday's own transaction: the deadline job's next look at each game where
    # the player is to move moves with the clock (games.services.endings.reschedule).
    endings.reschedule(user_id)
    # robust: the holiday is saved whatever happens to the announcement (it is logged).
    transaction.on_commit(lambda: _announce(user_id), robust=True)


def connect() -> None:
    post_save.connect(holidays_changed, sender=Holiday, dispatch_uid="games.holiday_clocks")
    post_delete.connect(
        holidays_changed, sender=Holiday, dispatch_uid="games.holiday_clocks.delete"
    )
