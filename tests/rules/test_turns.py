"""One test per rule of a turn: rolling, the direction, placing, Shanghai, rounds, resigning."""

import pytest

from games.rules import IllegalCommand, decide, legal_commands
from games.rules.state import TURN

from .builders import ScriptedDice, act, place, roll, set_player, start


def refused(state, seat, command, code, *dice):
    with pytest.raises(IllegalCommand) as err:
        decide(state, seat, command, ScriptedDice(*dice))
    assert err.value.code == code
    return err.value


def test_only_the_player_on_turn_may_act():
    state = start(first_player=1)
    refused(state, 0, {"type": "roll"}, "not_your_turn", 1, 2)
    assert roll(state, 1, 1, 2).roll == (1, 2)


def test_roll_records_the_dice_in_the_event():
    events = decide(start(), 0, {"type": "roll"}, ScriptedDice(4, 6))
    assert events == [{"type": "rolled", "seat": 0, "dice": [4, 6]}]


def test_direction_is_chosen_by_the_start_player_after_the_first_roll_only():
    state = start(first_player=0)
    refused(state, 0, {"type": "direction", "one_at": "left"}, "direction_not_expected")
    state = roll(state, 0, 2, 4)
    assert legal_commands(state, 0)[:2] == [
        {"type": "direction", "one_at": "left"},
        {"type": "direction", "one_at": "right"},
    ]
    refused(state, 1, {"type": "direction", "one_at": "left"}, "not_your_turn")
    # Before anything else: no placing and no trick before the direction.
    refused(state, 0, {"type": "place", "die": 0}, "must_choose_direction")
    refused(state, 0, {"type": "trick", "card": "T4", "half": "both"}, "must_choose_direction")
    refused(state, 0, {"type": "roll"}, "must_choose_direction")
    state = act(state, 0, {"type": "direction", "one_at": "left"})
    refused(state, 0, {"type": "direction", "one_at": "right"}, "direction_not_expected")
    state = place(state, 0)
    # The other player's first roll of the round asks for no direction: it holds.
    state = roll(state, 1, 5, 5)
    assert state.direction == "left"
    refused(state, 1, {"type": "direction", "one_at": "right"}, "direction_not_expected")


@pytest.mark.parametrize(("one_at", "index"), [("left", 1), ("right", 4)])
def test_a_die_goes_to_the_card_whose_number_it_shows_counted_from_the_chosen_end(one_at, index):
    state = roll(start(), 0, 2, 6)
    state = act(state, 0, {"type": "direction", "one_at": one_at})
    state = place(state, 0, die=0)
    dice = [0] * 6
    dice[index] = 1
    assert state.players[0].dice == tuple(dice)
    assert state.players[0].supply == 5
    assert state.roll is None and state.turn == 1


def test_placing_needs_a_roll_and_rolling_twice_is_refused():
    state = start()
    refused(state, 0, {"type": "place", "die": 0}, "roll_first")
    refused(
        state,
        0,
        {"type": "trick", "card": "T1", "half": "adjust", "die": 0, "delta": 1},
        "roll_first",
    )
    state = act(roll(state, 0, 1, 2), 0, {"type": "direction", "one_at": "left"})
    refused(state, 0, {"type": "roll"}, "already_rolled")
    refused(state, 0, {"type": "shanghai"}, "already_rolled")


def _round_with(placed_red: int, placed_blue: int):
    state = start()
    state = act(roll(state, 0, 1, 1), 0, {"type": "direction", "one_at": "left"})
    state = set_player(state, 0, dice=(placed_red, 0, 0, 0, 0, 0))
    state = set_player(state, 1, dice=(0, placed_blue, 0, 0, 0, 0))
    from dataclasses import replace

    return replace(state, roll=None, phase=TURN, turn=0)


def test_shanghai_needs_two_of_ones_own_dice_placed_this_round():
    state = _round_with(1, 5)
    refused(state, 0, {"type": "shanghai"}, "cannot_shanghai_yet")
    assert {"type": "shanghai"} not in legal_commands(state, 0)
    state = _round_with(2, 0)
    assert {"type": "shanghai"} in legal_commands(state, 0)
    assert decide(state, 0, {"type": "shanghai"})[0] == {"type": "shanghai_called", "seat": 0}


@pytest.mark.parametrize("placed", [5, 6])
def test_rolling_needs_two_dice_so_with_one_or_none_left_shanghai_is_forced(placed):
    state = _round_with(placed, 0)
    refused(state, 0, {"type": "roll"}, "must_shanghai")
    assert legal_commands(state, 0) == [{"type": "shanghai"}, {"type": "resign"}]


def test_with_two_dice_left_rolling_is_still_allowed():
    state = _round_with(4, 0)
    assert legal_commands(state, 0)[:2] == [{"type": "roll"}, {"type": "shanghai"}]


def test_shanghai_ends_the_round_and_the_other_player_starts_the_next():
    state = _round_with(2, 3)
    deck_before = state.deck
    state = act(state, 0, {"type": "shanghai"})
    assert state.round == 2
    assert state.start_player == 1 and state.turn == 1
    assert state.direction is None and state.roll is None
    assert state.tavern == deck_before[:6] and state.deck == deck_before[6:]
    assert all(p.supply == 6 and p.trick_used is False for p in state.players)
    assert state.last_round.called_by == 0 and state.last_round.round == 1
    # The new start player chooses the direction after their first roll.
    state = roll(state, 1, 3, 4)
    assert state.phase == "direction"


def test_the_game_ends_after_the_eighth_round():
    from dataclasses import replace

    state = _round_with(2, 0)
    state = replace(state, round=8, deck=())
    events = decide(state, 0, {"type": "shanghai"})
    assert [e["type"] for e in events] == ["shanghai_called", "game_ended"]
    state = act(state, 0, {"type": "shanghai"})
    assert state.finished and state.result.reason == "completed"
    assert legal_commands(state, 0) == legal_commands(state, 1) == []
    refused(state, 1, {"type": "roll"}, "game_over")


@pytest.mark.parametrize("seat", [0, 1])
def test_either_player_may_resign_at_any_time_and_the_other_wins(seat):
    state = roll(start(first_player=0), 0, 3, 3)
    assert {"type": "resign"} in legal_commands(state, seat)
    state = act(state, seat, {"type": "resign"})
    assert state.result.winner == 1 - seat
    assert state.result.reason == "resignation"
    refused(state, seat, {"type": "resign"}, "game_over")


def test_a_dealt_game_cannot_be_aborted_leaving_is_resigning():
    """The game is dealt as it starts: both players see the tavern and who starts."""
    state = start(first_player=0)
    for seat in (0, 1):
        assert {"type": "abort"} not in legal_commands(state, seat)
        refused(state, seat, {"type": "abort"}, "cannot_abort")
    with pytest.raises(IllegalCommand) as refusal:
        decide(state, 1, {"type": "abort"})
    assert "resign" in refusal.value.message and "called off" in refusal.value.message
    state = roll(state, 0, 1, 2)  # the first dice are seen too
    for seat in (0, 1):
        assert {"type": "abort"} not in legal_commands(state, seat)
        refused(state, seat, {"type": "abort"}, "cannot_abort")
    assert act(state, 1, {"type": "resign"}).result.winner == 0


def test_the_old_abort_rule_holds_only_when_asked_for_until_both_have_moved():
    """Games made before the rule: abort allowed until each player has moved."""
    state = start(first_player=0)
    old = {"legacy_abort": True}
    assert decide(state, 1, {"type": "abort"}, **old)[0]["reason"] == "aborted"
    state = place(act(roll(state, 0, 1, 2), 0, {"type": "direction", "one_at": "left"}), 0)
    ended = decide(state, 1, {"type": "abort"}, **old)  # blue has not moved yet
    assert ended == [{"type": "game_ended", "reason": "aborted", "winner": None, "seat": 1}]
    state = roll(state, 1, 3, 4)  # now both have moved
    with pytest.raises(IllegalCommand) as refusal:
        decide(state, 0, {"type": "abort"}, **old)
    assert refusal.value.code == "cannot_abort"


@pytest.mark.parametrize(
    ("reason", "winner"), [("timeout", 1), ("adjudicated", 0), ("annulled", None)]
)
def test_the_server_can_end_a_game_for_its_own_reasons(reason, winner):
    from games.rules import end_game, evolve

    state = roll(start(), 0, 2, 3)
    for event in end_game(state, reason, winner):
        state = evolve(state, event)
    assert (state.result.reason, state.result.winner) == (reason, winner)
    with pytest.raises(IllegalCommand):
        end_game(state, reason, winner)
    with pytest.raises(ValueError):
        end_game(start(), "boredom", None)
