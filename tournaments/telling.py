"""What a tournament tells its players: a notification when it starts, when a new game
of theirs begins, when it ends (or is cancelled). Called by the services inside their
transaction (the outbox rows are written with the change).

Interface (bodies to come)."""

from __future__ import annotations


def started(tournament, entries) -> None:
    """The tournament began: each entrant hears once, however many games they have."""


def game_began(tournament, match_game, players) -> None:
    """A game of a later stage (or a third game) began: both players hear."""


def ended(tournament, entries) -> None:
    """The tournament is over (or cancelled): each entrant hears, with their place."""
