"""The rules of Shanghaien as a pure Python library (no Django, no I/O, no global state).

State is immutable (frozen dataclasses and tuples); randomness comes in as a parameter,
any object with ``randint(a, b)``, ``shuffle(list)`` (and ``choice`` for the bots), such
as ``random.Random`` or ``secrets.SystemRandom``.

Public API
----------
``new_game(rng, extra_wild=False) -> (state, events)``
    Shuffles the 48 tavern cards, picks round 1's start player and deals the tavern.
    The events record those outcomes (``game_started`` holds the secret deck order).
``decide(state, seat, command, rng=None) -> [event]``
    Checks ``command`` by ``seat`` (0 or 1) and returns the events it causes, dice
    included. Raises ``IllegalCommand(code, message)``; the codes are listed in
    ``errors.CODES`` and are stable.
``evolve(state, event) -> state`` and ``replay(events) -> state``
    Fold events. Replaying stored events rebuilds a game exactly, with no RNG.
``legal_commands(state, seat) -> [command]``
    Every concrete command ``seat`` may send now; ``decide`` accepts exactly these.
``end_game(state, reason, winner) -> [event]``
    Endings from outside the players' commands: "timeout", "adjudicated", "annulled".
``player_view(state, seat) -> dict``
    The JSON-ready board as ``seat`` sees it ("me" / "opponent"), with the score table,
    the cards still to come, the projected score and last round's distribution. It
    never holds the deck order. This is the only way state leaves the engine for a player.
``state_to_json(state)`` / ``state_from_json(data)``
    The full state (secrets included) as JSON, for the server's snapshot.

Commands (the same vocabulary as the wire protocol)::

    {"type": "roll"}
    {"type": "direction", "one_at": "left" | "right"}   # the on-screen end that is 1
    {"type": "place", "die": 0 | 1}
    {"type": "trick", "card": "T3", "half": "wild", "nation": "spanish"}
    {"type": "trick", "card": "T1", "half": "adjust", "die": 1, "delta": -1}
    {"type": "trick", "card": "T4", "half": "both"}
    {"type": "trick", "card": "T7", "half": "reroll"}
    {"type": "shanghai"}
    {"type": "resign"}
    {"type": "abort"}        # always refused (cannot_abort): a dealt game is not called off

Events: ``game_started``, ``round_started``, ``rolled``, ``direction_chosen``,
``placed``, ``trick_played``, ``shanghai_called``, ``game_ended``.
"""

from .cards import CARDS, DECK, NATIONS, TRICK_ACTIONS, Card
from .engine import (
    SYSTEM_ENDINGS,
    can_abort,
    card_locations,
    decide,
    end_game,
    evolve,
    legal_commands,
    new_game,
    replay,
)
from .illegal import CODES, IllegalCommand
from .random_player import random_command
from .scoring import score
from .serialize import state_from_json, state_to_json
from .state import GameState, Player
from .view import as_known, player_view

__all__ = [
    "CARDS",
    "CODES",
    "DECK",
    "NATIONS",
    "TRICK_ACTIONS",
    "Card",
    "GameState",
    "IllegalCommand",
    "SYSTEM_ENDINGS",
    "as_known",
    "can_abort",
    "end_game",
    "Player",
    "card_locations",
    "decide",
    "evolve",
    "legal_commands",
    "new_game",
    "player_view",
    "random_command",
    "replay",
    "score",
    "state_from_json",
    "state_to_json",
]
