"""A player that picks uniformly among the legal commands: for tests, benchmarks, load."""

from __future__ import annotations

from .engine import Command, legal_commands
from .state import GameState


def random_command(state: GameState, seat: int, rng, resign: bool = False) -> Command | None:
    """A random legal command for ``seat`` (never resigning unless ``resign``), or None."""
    choices = [c for c in legal_commands(state, seat) if resign or c["type"] != "resign"]
    return rng.choice(choices) if choices else None
