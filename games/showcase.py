"""The board on the home page: a real position, played by the engine, drawn by the board's
own renderers (static/js/home.js), so a visitor sees the game before signing up.

The position is always the same: a game dealt from ``SEED`` and played by two
boatswains (the computer opponent of the second level) until the red player, in round
``FROM_ROUND`` or later, has rolled with dice of both players on the cards. Computed once
per process; only the words around it follow the request's language.
"""

from __future__ import annotations

import random
from functools import cache

from django.utils.translation import pgettext

from . import bots, rules
from .rules import player_view
from .rules.state import GameState

SEED = 7  # deals a round 3 in which red holds a trick card beside the rolled dice
FROM_ROUND = 3
LEVEL = "boatswain"
RED = 0
MAX_COMMANDS = 400  # a game has fewer; a change of the bots that never stops is caught


def _shown(state: GameState) -> bool:
    """Red to place a rolled die in a later round, with dice of both players on the cards."""
    if state.turn != RED or state.round < FROM_ROUND:
        return False
    legal = {c["type"] for c in rules.legal_commands(state, RED)}
    return "place" in legal and all(sum(p.dice) >= 2 for p in state.players)


@cache
def position() -> GameState:
    rng = random.Random(SEED)
    state, _events = rules.new_game(rng)
    for _ in range(MAX_COMMANDS):
        if _shown(state):
            return state
        seat = state.turn
        command = bots.choose(state, seat, LEVEL, rng)
        for event in rules.decide(state, seat, command, rng):
            state = rules.evolve(state, event)
    raise RuntimeError("the home page's position was never reached")


def names() -> dict[str, str]:
    return {
        "me": pgettext("the visitor on the home page's board", "You"),
        "opponent": pgettext("the computer on the home page's board", "Computer"),
    }


def board_json() -> dict:
    """The board's renderers' input (as the rules page's examples): red's view, with the
    buttons red would have; nothing on it can be sent."""
    view = player_view(position(), RED)
    return {"players": names(), "view": view, "watching": False, "outcome": None}


def summary() -> dict:
    """What the picture shows, in numbers for the words of the page without script."""
    view = player_view(position(), RED)
    return {
        "round": view["round"],
        "rounds": view["rounds"],
        "dice": view["roll"]["dice"],
        "tricks": len(view["me"]["tricks"]),
    }
