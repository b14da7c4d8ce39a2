"""Creating a tournament, signing up and leaving, withdrawing once it runs, cancelling.

Interface (bodies to come): every ``do_*`` runs in one transaction with the
tournament's row locked first; a bad value raises ``BadRequest`` naming the field, a
refusal ``Forbidden``/``Conflict`` with a code (see each function).
"""

from __future__ import annotations

from games.clock import Bank


def check_tournament(user, **terms) -> dict:
    """The terms of a new tournament, checked (``BadRequest("bad_tournament", …)``
    naming the field); returns the model fields."""
    raise NotImplementedError


def do_create(
    user,
    *,
    name: str,
    format: str,
    signup_deadline,
    description: str = "",
    extra_wild: bool = False,
    rated: bool = True,
    days_per_move: int = 3,
    bank: Bank | None = None,
    min_rating: int | None = None,
    max_rating: int | None = None,
    min_players: int = 4,
    max_players: int = 16,
    group_size: int = 4,
    advance: int = 2,
):
    """A new tournament, open for sign-up until ``signup_deadline``; the creator is not
    entered (they join like anyone). Staff's are featured. A player has at most a few
    tournaments of their own open or running at once."""
    raise NotImplementedError


def do_join(tournament_id, user):
    """Sign up (until the start): within the rating bounds, not full, not suspended, not
    a guest or a computer opponent. Returns the ``Entry``."""
    raise NotImplementedError


def do_leave(tournament_id, user) -> None:
    """Take back a sign-up before the start."""
    raise NotImplementedError


def do_withdraw(tournament_id, user, reason: str = ""):
    """Leave a running tournament: the written rules (docs/tournaments.md) forfeit the
    player's remaining games and matches; results already played stand."""
    raise NotImplementedError


def do_cancel(tournament_id, user):
    """The creator (before the start) or staff (any time) cancels; running games end
    without result."""
    raise NotImplementedError
