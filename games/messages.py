"""The messages of a game, declared once: the commands a player sends, by HTTP or socket.

Each command type is a pydantic model built from the rules' own tables
(``games.rules.shapes``: the keys each type takes, the values each key may hold), so the
OpenAPI schema of the HTTP API, the socket frames and the engine's ``parse_command`` say
the same thing. Unknown fields are refused (``extra="forbid"``), and values are strict:
``true`` is not the die 1, ``"1"`` is not the delta 1.

The engine still checks every command it is given (``parse_command``): these models are
what the site's edges validate and publish, the engine is what decides.
"""

from __future__ import annotations

from typing import Annotated, Literal, Union

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, create_model

from .rules.shapes import SIMPLE_KEYS, TRICK_HALF_KEYS, VALUES


class Message(BaseModel):
    """A message in or out: no field beyond those declared, no coercion of types."""

    model_config = ConfigDict(extra="forbid", strict=True)


def _same_type(allowed: tuple):
    kinds = {type(value) for value in allowed}

    def check(value):
        # JSON's true and 1.0 equal 1 to Python: a literal of numbers would take them.
        if type(value) not in kinds:
            raise ValueError(f"one of {', '.join(map(repr, allowed))} is expected")
        return value

    return BeforeValidator(check)


def _field(key: str):
    allowed = VALUES[key]
    return (Annotated[Literal[allowed], _same_type(allowed)], ...)  # type: ignore[valid-type]


def _model(name: str, doc: str, **fields):
    return create_model(name, __base__=Message, __doc__=doc, **fields)


def _title(words: str) -> str:
    return "".join(part.capitalize() for part in words.split("_"))


_SIMPLE = [
    _model(
        f"{_title(kind)}Command",
        f"The command {kind!r}.",
        type=(Literal[kind], ...),
        **{key: _field(key) for key in keys},
    )
    for kind, keys in SIMPLE_KEYS.items()
]
_TRICKS = [
    _model(
        f"Trick{_title(half)}Command",
        f"Playing a trick card's {half!r} half.",
        type=(Literal["trick"], ...),
        card=(str, ...),
        half=(Literal[half], ...),
        **{key: _field(key) for key in keys},
    )
    for half, keys in TRICK_HALF_KEYS.items()
]

TrickCommand = Annotated[Union[tuple(_TRICKS)], Field(discriminator="half")]  # noqa: UP007
Command = Annotated[Union[(*_SIMPLE, TrickCommand)], Field(discriminator="type")]  # noqa: UP007
"""Any command a player may send: ``{"type": "roll"}``, ``{"type": "trick", "card":
"t3", "half": "adjust", "die": 0, "delta": 1}``…"""
