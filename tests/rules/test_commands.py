import pytest

from games.rules import IllegalCommand, decide

from .builders import ScriptedDice, roll, start

MALFORMED = [
    None,
    "roll",
    [],
    {},
    {"type": 7},
    {"type": "fly"},
    {"type": "roll", "extra": 1},
    {"type": "direction"},
    {"type": "direction", "one_at": "up"},
    {"type": "place"},
    {"type": "place", "die": 2},
    {"type": "place", "die": True},
    {"type": "place", "die": "0"},
    {"type": "place", "dice": 0},  # as many keys as a placement takes, but not its own
    {"type": "place", "die": 0, "delta": 1},
    {"type": "direction", "one_at": "left", "die": 0},
    {"type": "trick", "half": "both"},
    {"type": "trick", "card": "T4"},
    {"type": "trick", "card": "T4", "half": "steal"},
    {"type": "trick", "card": 4, "half": "both"},
    {"type": "trick", "card": "T1", "half": "adjust", "die": 0},
    {"type": "trick", "card": "T1", "half": "adjust", "die": 0, "delta": 2},
    {"type": "trick", "card": "T1", "half": "adjust", "die": 0, "delta": 0},
    {"type": "trick", "card": "T1", "half": "adjust", "die": 0, "step": 1},
    {"type": "trick", "card": "T1", "half": "adjust", "die": 0, "delta": True},
    {"type": "trick", "card": "T1", "half": "wild"},
    {"type": "trick", "card": "T1", "half": "wild", "nation": "klingon"},
    {"type": "trick", "card": "T4", "half": "both", "nation": "dutch"},
]


@pytest.mark.parametrize("command", MALFORMED, ids=repr)
def test_malformed_commands_are_bad_command(command):
    state = roll(start(), 0, 3, 5)
    with pytest.raises(IllegalCommand) as err:
        decide(state, 0, command, ScriptedDice(1, 1))
    assert err.value.code == "bad_command"
    assert err.value.message


def test_seat_other_than_0_or_1_is_not_a_player():
    with pytest.raises(IllegalCommand) as err:
        decide(start(), 2, {"type": "roll"}, ScriptedDice(1, 1))
    assert err.value.code == "not_a_player"


def test_error_codes_are_known_and_serialisable():
    error = IllegalCommand("not_your_turn")
    assert error.to_json() == {"code": "not_your_turn", "message": error.message}
    with pytest.raises(ValueError):
        IllegalCommand("no_such_code")
