"""A player that picks uniformly among the legal commands: for tests, benchmarks, load."""

from __future__ import annotations

from .engine import Command, legal_commands
from .state import GameState

# The command that ends a game early (a dealt game cannot be aborted, so resigning is the
# only one); a random player sends it only when asked to.
GIVING_UP = ("resign",)


def random_command(state: GameState, seat: int, rng, give_up: bool = False) -> Command | None:
    """A random legal command for ``seat`` (never resigning unless ``give_up``)."""
    choices = [c for c in legal_commands(state, seat) if give_up or c["type"] not in GIVING_UP]
    return rng.choice(choices) if choices else None
