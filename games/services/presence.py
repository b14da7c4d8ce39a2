"""Which players have a game open right now (then "your turn" emails are not needed),
and what a player's board says of the opponent: here at this game, online, last seen."""

from __future__ import annotations

import operator
from datetime import timedelta
from functools import reduce

from django.contrib.auth import get_user_model
from django.db.models import Case, F, Q, Value, When
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.online import presence_of, presence_words

from ..models import Seat

# A process renews the leases of its open game sockets every minute (consumers.Leases);
# one not heard from for longer belonged to a server that stopped without closing it.
SOCKET_LEASE = timedelta(minutes=3)


def _lease_lapsed(now):
    return Q(socket_seen_at__isnull=True) | Q(socket_seen_at__lt=now - SOCKET_LEASE)


def socket_opened(game_id, user, now=None) -> None:
    """Count one more open socket; a count whose lease lapsed was left by a dead server
    and starts again from this socket."""
    now = now or timezone.now()
    Seat.objects.filter(game_id=game_id, user=user).update(
        open_sockets=Case(When(_lease_lapsed(now), then=Value(1)), default=F("open_sockets") + 1),
        socket_seen_at=now,
    )


def sockets_alive(pairs, now=None) -> None:
    """The open sockets of a process renew their leases together: ``pairs`` are
    (game id, user id), a few hundred to a statement."""
    now = now or timezone.now()
    pairs = list(pairs)
    for start in range(0, len(pairs), 500):
        chunk = pairs[start : start + 500]
        seats = reduce(operator.or_, (Q(game_id=game, user_id=user) for game, user in chunk))
        Seat.objects.filter(seats, open_sockets__gt=0).update(socket_seen_at=now)


def socket_closed(game_id, user) -> None:
    Seat.objects.filter(game_id=game_id, user=user, open_sockets__gt=0).update(
        open_sockets=F("open_sockets") - 1
    )


def has_game_open(game, user, now=None) -> bool:
    """Whether the player has this game (or its id) open in a browser right now."""
    now = now or timezone.now()
    return (
        Seat.objects.filter(game=game, user=user, open_sockets__gt=0)
        .exclude(_lease_lapsed(now))
        .exists()
    )


def here_frame() -> dict:
    """The frame of an opponent at this game (in the language active now)."""
    return {"state": "here", "text": _("Here, at this game")}


def nothing_frame() -> dict:
    """The frame of an opponent of whom nothing is shown."""
    return {"state": "none", "text": ""}


def board_presence(game_id: int, viewer, opponent_id: int) -> dict:
    """What the viewer's board says of the opponent (the socket's ``presence`` frame):
    ``here`` (the opponent has this game open, and a socket of theirs holds its place,
    which lapses within a minute of a killed server), else ``online``, else ``seen`` with
    when, else ``none`` (a computer, a player who hides their presence, never seen)."""
    opponent = (
        get_user_model()
        .objects.filter(pk=opponent_id)
        .only("pk", "bot_level", "show_presence", "last_seen_at")
        .first()
    )
    if opponent is None:
        return nothing_frame()
    presence = presence_of(viewer, [opponent])[opponent.pk]
    if presence.online and has_game_open(game_id, opponent):
        return here_frame()
    if presence.online:
        return {"state": "online", "text": presence_words(presence)}
    if presence.last_seen is not None:
        return {"state": "seen", "text": presence_words(presence)}
    return nothing_frame()
