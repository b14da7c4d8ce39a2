"""The shape of commands: what keys each type takes and which values are allowed.

Shape errors are ``bad_command``; whether a well-formed command is allowed now is the
engine's question (``engine.decide``).
"""

from __future__ import annotations

from typing import Any

from .cards import NATIONS
from .illegal import IllegalCommand

# type -> the keys it takes besides "type"
_SIMPLE: dict[str, tuple[str, ...]] = {
    "roll": (),
    "shanghai": (),
    "resign": (),
    "abort": (),
    "direction": ("one_at",),
    "place": ("die",),
}
# trick half -> the keys it takes besides "type", "card" and "half"
_TRICK_HALVES: dict[str, tuple[str, ...]] = {
    "wild": ("nation",),
    "adjust": ("die", "delta"),
    "both": (),
    "reroll": (),
}

COMMAND_TYPES = (*_SIMPLE, "trick")


def _bad(message: str) -> IllegalCommand:
    return IllegalCommand("bad_command", message)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_keys(command: dict, expected: tuple[str, ...]) -> None:
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
        if not isinstance(half, str) or half not in _TRICK_HALVES:
            raise _bad(f"A trick's 'half' is one of {', '.join(_TRICK_HALVES)}.")
        if not isinstance(command.get("card"), str):
            raise _bad("A trick needs the 'card' id of the trick card.")
        _check_keys(command, ("card", "half", *_TRICK_HALVES[half]))
    else:
        _check_keys(command, _SIMPLE[kind])
    if "one_at" in command and command["one_at"] not in ("left", "right"):
        raise _bad("'one_at' is 'left' or 'right'.")
    if "die" in command and not (_is_int(command["die"]) and command["die"] in (0, 1)):
        raise _bad("'die' is 0 or 1, the index of a rolled die.")
    if "delta" in command and not (_is_int(command["delta"]) and command["delta"] in (1, -1)):
        raise _bad("'delta' is 1 or -1.")
    if "nation" in command and command["nation"] not in NATIONS:
        raise _bad(f"'nation' is one of {', '.join(NATIONS)}.")
    return command
