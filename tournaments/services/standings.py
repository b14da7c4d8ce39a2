"""A tournament game's end, counted in its match and its group's standings."""

from __future__ import annotations


def game_ended(game, players) -> None:
    """``games.services.game_log.ended_hooks``: in the transaction that ends ``game``
    (its result set on the object, the row not yet saved)."""
