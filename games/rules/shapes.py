"""The shape of commands: what keys each type takes and which values are allowed.

Shape errors are ``bad_command``; whether a well-formed command is allowed now is the
engine's question (``engine.decide``).
"""

from __future__ import annotations

from typing import Any

from .cards import NATIONS
from .illegal import IllegalCommand

# type -> the keys it takes besides "type"
SIMPLE_KEYS: dict[str, tuple[str, ...]] = {
    "roll": (),
    "shanghai": (),
    "resign": (),
    "abort": (),
    "direction": ("one_at",),
    "place": ("die",),
}
# trick half -> the keys it takes besides "type", "card" and "half"
TRICK_HALF_KEYS: dict[str, tuple[str, ...]] = {
    "wild": ("nation",),
    "adjust": ("die", "delta"),
    "both": (),
    "reroll": (),
}

COMMAND_TYPES = (*SIMPLE_KEYS, "trick")

# key -> the values it may take (a trick's "card" is any card id: the engine decides
# whether that card is the player's). ``games.messages`` declares the commands from these
# tables, so the schema of the API and of the sockets says what this module checks.
VALUES: dict[str, tuple] = {
    "one_at": ("left", "right"),
    "die": (0, 1),
    "delta": (1, -1),
    "nation": NATIONS,
}


def _bad(message: str) -> IllegalCommand:
    return IllegalCommand("bad_command", message)


def _one_of(value: Any, allowed: tuple) -> bool:
    """``value`` is one of ``allowed``, of the same type (True is not the die 1)."""
    return any(type(value) is type(choice) and value == choice for choice in allowed)


_WRONG_VALUE = {
    "one_at": "'one_at' is 'left' or 'right'.",
    "die": "'die' is 0 or 1, the index of a rolled die.",
    "delta": "'delta' is 1 or -1.",
    "nation": f"'nation' is one of {', '.join(NATIONS)}.",
}


def _check_keys(command: dict, expected: tuple[str, ...]) -> None:
    if len(command) == len(expected) + 1 and all(key in command for key in expected):
        return  # exactly the keys expected, besides "type"
    keys = set(command) - {"type"}
    missing = [k for k in expected if k not in keys]
    if missing:
        raise _bad(f"A {command['type']!r} command needs {', '.join(map(repr, missing))}.")
    extra = sorted(keys - set(expected))
    if extra:
        raise _bad(f"A {command['type']!r} command takes no {', '.join(map(repr, extra))}.")


def parse_command(command: Any) -> dict:
    """Return the command if it is well-formed; raise ``bad_command`` otherwise."""
    if not isinstance(command, dict):
        raise _bad("A command is a JSON object with a 'type'.")
    kind = command.get("type")
    if not isinstance(kind, str) or kind not in COMMAND_TYPES:
        raise _bad(f"Unknown command type {kind!r}; expected one of {', '.join(COMMAND_TYPES)}.")
    if kind == "trick":
        half = command.get("half")
        if not isinstance(half, str) or half not in TRICK_HALF_KEYS:
            raise _bad(f"A trick's 'half' is one of {', '.join(TRICK_HALF_KEYS)}.")
        if not isinstance(command.get("card"), str):
            raise _bad("A trick needs the 'card' id of the trick card.")
        valued = TRICK_HALF_KEYS[half]
        _check_keys(command, ("card", "half", *valued))
    else:
        valued = SIMPLE_KEYS[kind]
        _check_keys(command, valued)
    # the keys are now exactly those the type takes: check those with a set of values
    for key in valued:
        if key in VALUES and not _one_of(command[key], VALUES[key]):
            raise _bad(_WRONG_VALUE[key])
    return command
