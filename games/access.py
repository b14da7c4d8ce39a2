"""Who sits where in a game, and what a user may do there: the one place that says so.

``access_game`` is how every part of the server (services, serializers, history, the API,
the sockets, the jobs) finds a game for a user: the game, its two players by seat, the
user's own seat (None for a watcher), and the side the board is seen from.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Prefetch, prefetch_related_objects
from django.utils.translation import gettext_lazy as _

from shanghaien.lib.errors import Forbidden, NotFound
from shanghaien.lib.input import parse_id
from shanghaien.lib.statements import JoinedQuery

from .models import Game, Seat


@dataclass(frozen=True)
class Seating:
    game: Game
    players: tuple  # the two users, by seat
    seat: int | None  # the user's seat; None for a watcher

    @property
    def watching(self) -> bool:
        return self.seat is None

    @property
    def side(self) -> int:
        """The seat the board is seen from: a player's own, seat 0 for a watcher."""
        return 0 if self.seat is None else self.seat

    @property
    def me(self):
        """The player the board is seen from (``side``)."""
        return self.players[self.side]

    @property
    def opponent(self):
        return self.players[1 - self.side]

    @property
    def names(self) -> dict:
        """Each seat's username, by seat number."""
        return {seat: player.username for seat, player in enumerate(self.players)}

    def seat_of(self, user) -> int | None:
        """The seat of ``user`` (a user or a user id), None if they do not play here."""
        pk = getattr(user, "pk", user)
        return next((s for s, p in enumerate(self.players) if p.pk == pk), None)


def seating(game: Game, user=None) -> Seating:
    """The seating of a game already at hand, seen by ``user`` (None: nobody's seat)."""
    # Seats a list of games prefetched (games.queries) are not read again.
    prefetch_related_objects([game], Prefetch("seats", Seat.objects.select_related("user")))
    seats = sorted(game.seats.all(), key=lambda s: s.seat)
    players = tuple(s.user for s in seats)
    seat = None
    if user is not None:
        seat = next((s.seat for s in seats if s.user_id == user.pk), None)
    return Seating(game, players, seat)


def access_game(user, game_id, *, lock: bool = False, must_play: bool = False) -> Seating:
    """The game ``game_id`` as ``user`` may see it.

    Anyone logged in may watch a game; ``must_play`` refuses a watcher and a suspended
    player (read now: the user object of an open socket was loaded when it connected).
    ``lock`` locks the game row until the caller's transaction ends. One query reads the
    game, its seats and both users. An id that is not a game's, whatever its form, is
    ``NotFound``.
    """
    found = _seated(game_id, user, lock)
    if must_play:
        if found.seat is None:
            raise Forbidden("not_a_player", _("Only the two players of this game can do that."))
        if found.players[found.seat].is_suspended:
            raise Forbidden("suspended", _("Your account is suspended."))
    return found


# Every move and every read runs one of these: written once (shanghaien.lib.statements).
# Seat.objects.select_related("game", "user").filter(game_id=pk).order_by("seat"), the
# second with select_for_update(of=("game",)).
_SEATS = JoinedQuery(Seat, where="game", related=("game", "user"), order_by="seat")
_SEATS_LOCKED = JoinedQuery(
    Seat, where="game", related=("game", "user"), order_by="seat", lock_of=("game",)
)


def _seated(game_id, user, lock: bool) -> Seating:
    """The game with its seats and their users in one query, the game row locked if asked."""
    pk = parse_id(game_id)
    seats = (_SEATS_LOCKED if lock else _SEATS)(pk) if pk else []
    if not seats:  # every game has its two seats from the start
        raise NotFound("not_found", _("No such game."))
    game = seats[0].game
    for seat in seats[1:]:
        seat.game = game  # one object for the game, whichever seat it is reached from
    seat = None if user is None else next((s.seat for s in seats if s.user_id == user.pk), None)
    return Seating(game, tuple(s.user for s in seats), seat)
