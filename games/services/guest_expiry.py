"""Guests whose time is up are deleted, with their games (docs/operations.md, "Guests").

A guest (``accounts.guest_accounts``) lives ``GUEST_LIFETIME`` after it was made, its last
game started or its last move. The worker's job (``games.jobs.expire_guests``) reads only
the guests whose ``guest_until`` has come, on the partial index ``user_guest_until_idx``
(one statement when none is due, however many players and games the site holds), and
deletes each in its own transaction.

A guest plays only the computer, so its games are its own to delete: their events (the
one place events are ever deleted: a game that is deleted takes its log with it), seats,
commands, analysis and notifications; then the account, with what cascades from it
(invitations, the pending seed, the game record). Guests' games are unrated: no rating
changes with them.
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from accounts.models import User

from ..models import Event, Game, Seat

# The guests one round of the job deletes at most; the rest are due still and wait for
# the next round.
EXPIRY_BATCH = 200


def due_guests(now=None, limit: int = EXPIRY_BATCH) -> list[int]:
    """The ids of the guests whose time is up, the longest due first."""
    now = now or timezone.now()
    due = (
        User.objects.filter(guest_until__isnull=False, guest_until__lte=now)
        .order_by("guest_until")
        .values_list("pk", flat=True)
    )
    return list(due[:limit])


def do_expire_guest(user_id: int, now=None) -> bool:
    """Delete the guest ``user_id`` and its games if its time is up (read again, locked:
    a move or a sign-up just now keeps it). True if it was deleted."""
    now = now or timezone.now()
    with transaction.atomic():
        guest = (
            User.objects.select_for_update()
            .filter(pk=user_id, guest_until__isnull=False, guest_until__lte=now)
            .first()
        )
        if guest is None:
            return False
        game_ids = list(Seat.objects.filter(user=guest).values_list("game_id", flat=True))
        # the computer may be playing a turn in one of them: it holds the row, we wait
        list(Game.objects.select_for_update().filter(pk__in=game_ids).values_list("pk"))
        # Events are never deleted, save with their game: the plain manager does it.
        Event._base_manager.filter(game_id__in=game_ids).delete()
        Game.objects.filter(pk__in=game_ids).delete()
        guest.delete()
    return True
