"""The declared commands (games.messages) accept exactly what the engine's parser accepts."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import TypeAdapter, ValidationError

from games.messages import Command
from games.rules.cards import NATIONS
from games.rules.illegal import IllegalCommand
from games.rules.shapes import COMMAND_TYPES, TRICK_HALF_KEYS, VALUES, parse_command

COMMAND = TypeAdapter(Command)
KEYS = ["type", "card", "half", *VALUES, "extra"]
SCALARS = st.sampled_from(
    [*COMMAND_TYPES, *TRICK_HALF_KEYS, *NATIONS, "left", "right", "t1", "", 0, 1, -1, 2, 1.0]
    + [True, False, None, "1", [], {}]
)


def declared(command) -> bool:
    try:
        COMMAND.validate_python(command)
    except ValidationError:
        return False
    return True


def parsed(command) -> bool:
    try:
        parse_command(command)
    except IllegalCommand:
        return False
    return True


@settings(max_examples=3000, deadline=None)
@given(st.dictionaries(st.sampled_from(KEYS), SCALARS, max_size=5))
def test_the_declaration_and_the_engine_agree(command):
    assert declared(command) == parsed(command), command


@pytest.mark.parametrize(
    "command",
    [
        {"type": "roll"},
        {"type": "direction", "one_at": "right"},
        {"type": "place", "die": 0},
        {"type": "trick", "card": "t4", "half": "adjust", "die": 1, "delta": -1},
        {"type": "trick", "card": "t4", "half": "wild", "nation": NATIONS[0]},
        {"type": "trick", "card": "", "half": "both"},  # the engine says whose card it is
    ],
)
def test_well_formed_commands_pass_both(command):
    assert declared(command) and parsed(command)


@pytest.mark.parametrize(
    "command",
    [
        {"type": "roll", "die": 0},
        {"type": "place", "die": True},
        {"type": "place", "die": 1.0},
        {"type": "trick", "card": "t4", "half": "both", "nation": NATIONS[0]},
        {"type": "teleport"},
    ],
)
def test_malformed_commands_fail_both(command):
    assert not declared(command) and not parsed(command)
