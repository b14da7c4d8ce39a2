"""What the previous release leaves undone while an upgrade switches over.

During an upgrade the previous release still serves between the migration and the start
of the new processes (docs/operations.md, "Upgrading"), and it knows nothing of what this
release keeps beside a game's row: a game it ends keeps seats that say "under way", no
record counts it and no analysis waits for it; a turn it begins after a computer
opponent's keeps no due time. ``catch_up`` finds both from what is running, not from the
history: the seats not yet ended (the partial index of running seats) and the active
games with a clock but no due time. The worker calls it when it starts; in an upgrade it
is replaced last, so by then no process of the previous release is left. Each game is
mended in its own transaction under its row lock, and a second run finds nothing.

A game the previous release ended after games 0016's fill has its seats ended but not
the columns the filtered lists read, and is in no record per opponent, variant or month:
``_unfilled_seats`` finds those seats on their partial index (empty otherwise). A game
it ends stays ``listed`` on the live page: ``_listed_but_over`` takes it off.
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from ..clock import effective_deadline, next_due
from ..models import Game, Seat
from . import analysis, player_records


def catch_up(now=None) -> dict:
    return {
        "ended": _ended_games(),
        "filled": _unfilled_seats(),
        "unlisted": _listed_but_over(),
        "scheduled": _unscheduled_clocks(now or timezone.now()),
    }


def _ended_games() -> int:
    running_seats = Seat.objects.filter(ended_at__isnull=True)
    ids = sorted(
        set(
            running_seats.exclude(game__status=Game.Status.ACTIVE).values_list("game_id", flat=True)
        )
    )
    mended = 0
    for game_id in ids:
        with transaction.atomic():
            game = (
                Game.objects.select_for_update(of=("self",))
                .exclude(status=Game.Status.ACTIVE)
                .filter(pk=game_id)
                .first()
            )
            if game is None or not running_seats.filter(game=game).exists():
                continue  # another worker mended it first
            game.finished_at = game.finished_at or game.last_move_at or game.created_at
            seats = Seat.objects.filter(game=game).select_related("user").order_by("seat")
            player_records.game_ended(game, [seat.user for seat in seats])
            analysis.queue(game)  # a finished one's: aborted and annulled games have none
            mended += 1
    return mended


def _listed_but_over() -> int:
    """Games the previous release ended while listed on the live page (the few listed
    rows, on their partial index): taken off it."""
    listed = Game.objects.filter(listed=True).exclude(status=Game.Status.ACTIVE)
    return listed.update(listed=False)


def _unfilled_seats() -> int:
    unfilled = Seat.objects.filter(ended_at__isnull=False, outcome__isnull=True)
    mended = 0
    for game_id in sorted(set(unfilled.values_list("game_id", flat=True))):
        with transaction.atomic():
            game = Game.objects.select_for_update(of=("self",)).filter(pk=game_id).first()
            if game is None or not unfilled.filter(game=game).exists():
                continue  # another worker mended it first
            seats = Seat.objects.filter(game=game).select_related("user").order_by("seat")
            player_records.fill_ended(game, [seat.user for seat in seats])
            mended += 1
    return mended


def _unscheduled_clocks(now) -> int:
    unscheduled = (
        Game.objects.filter(
            status=Game.Status.ACTIVE, deadline__isnull=False, due_at__isnull=True
        ).exclude(to_move__bot_level__gt="")  # a computer opponent never runs out of time
    )
    mended = 0
    for game_id in unscheduled.values_list("pk", flat=True):
        with transaction.atomic():
            game = (
                unscheduled.select_for_update(of=("self",))
                .select_related("to_move")
                .filter(pk=game_id)
                .first()
            )
            if game is None:
                continue
            game.due_at = next_due(game, effective_deadline(game), now)
            game.save(update_fields=["due_at"])
            mended += 1
    return mended
