"""One test per rule of the dirty tricks."""

from dataclasses import replace

import pytest

from games.rules import DECK, IllegalCommand, decide, legal_commands, player_view, score

from .builders import ScriptedDice, act, place, roll, set_player, start


def refused(state, seat, command, code, *dice):
    with pytest.raises(IllegalCommand) as err:
        decide(state, seat, command, ScriptedDice(*dice))
    assert err.value.code == code


def rolled(a, b, tricks=("T1", "T4", "T7"), sailors=("spanish-3a",), seat=0):
    """Seat 0 started round 1 with the given hand, rolled a and b and set "1" at the left."""
    state = set_player(start(first_player=0), seat, tricks=tricks, sailors=sailors)
    state = roll(state, 0, a, b)
    return act(state, 0, {"type": "direction", "one_at": "left"})


def trick(card, half, **more):
    return {"type": "trick", "card": card, "half": half, **more}


def test_legal_tricks_are_offered_only_right_after_ones_own_roll():
    state = set_player(start(first_player=0), 0, tricks=("T4",))
    assert not [c for c in legal_commands(state, 0) if c["type"] == "trick"]
    refused(state, 0, trick("T4", "both"), "roll_first")
    state = act(roll(state, 0, 2, 3), 0, {"type": "direction", "one_at": "left"})
    assert trick("T4", "both") in legal_commands(state, 0)
    state = place(state, 0)
    refused(state, 0, trick("T4", "both"), "not_your_turn")  # after placing, the turn is over


def test_at_most_one_trick_per_round_marked_by_the_captain():
    state = rolled(3, 4)
    state = act(state, 0, trick("T7", "wild", nation="spanish"))
    assert state.players[0].trick_used
    assert player_view(state, 0)["me"]["trick_used_this_round"] is True
    assert player_view(state, 1)["opponent"]["trick_used_this_round"] is True
    refused(state, 0, trick("T1", "adjust", die=0, delta=1), "trick_already_used")
    assert not [c for c in legal_commands(state, 0) if c["type"] == "trick"]
    # Later turns of the same round: still used.
    state = place(roll(place(state, 0), 1, 1, 2), 1)
    state = roll(state, 0, 5, 6)
    refused(state, 0, trick("T4", "both"), "trick_already_used")
    # The captain returns at the round's end.
    state = replace(place(state, 0), turn=0)
    state = act(state, 0, {"type": "shanghai"})
    assert state.players[0].trick_used is False


def test_a_player_can_only_use_trick_cards_in_their_own_hand():
    state = rolled(3, 4, tricks=("T1",))
    state = set_player(state, 1, tricks=("T4",))
    refused(state, 0, trick("T4", "both"), "no_such_trick")
    refused(state, 0, trick("T2", "adjust", die=0, delta=1), "no_such_trick")


def test_a_trick_card_offers_only_its_own_action_besides_two_sailors():
    state = rolled(3, 4, tricks=("T1",))  # T1 is 2 Sailors / Die ±1
    refused(state, 0, trick("T1", "both"), "wrong_half")
    refused(state, 0, trick("T1", "reroll"), "wrong_half")


def test_two_sailors_joins_a_nation_with_a_real_sailor_and_counts_two():
    state = rolled(3, 4, tricks=("T4",), sailors=("german-1",))
    refused(state, 0, trick("T4", "wild", nation="spanish"), "nation_not_held")
    wilds = [c for c in legal_commands(state, 0) if c.get("half") == "wild"]
    assert wilds == [trick("T4", "wild", nation="german")]
    state = act(state, 0, trick("T4", "wild", nation="german"))
    assert state.players[0].wilds == (("T4", "german"),)
    assert state.players[0].strength("german") == 3
    assert state.players[0].tricks == ()
    # The wild is a sailor now, not an unused trick: it scores as a sailor only.
    assert score(state.players)[0].tricks == 0
    # Then a die is placed as usual.
    assert state.phase == "placement" and state.roll == (3, 4)
    state = place(state, 0, die=1)
    assert state.players[0].dice == (0, 0, 0, 1, 0, 0)


def test_two_sailors_is_refused_without_any_sailor():
    state = rolled(3, 4, tricks=("T4",), sailors=())
    refused(state, 0, trick("T4", "wild", nation="german"), "nation_not_held")


@pytest.mark.parametrize(
    ("die", "delta", "dice"), [(0, 1, (4, 4)), (0, -1, (2, 4)), (1, 1, (3, 5))]
)
def test_die_plus_minus_one_changes_one_rolled_die(die, delta, dice):
    state = rolled(3, 4)
    state = act(state, 0, trick("T1", "adjust", die=die, delta=delta))
    assert state.roll == dice
    assert "T1" in state.discarded and "T1" not in state.players[0].tricks
    assert state.phase == "placement"  # then place either die
    state = place(state, 0, die=0)
    assert state.players[0].dice[dice[0] - 1] == 1


@pytest.mark.parametrize(("dice", "die", "delta"), [((6, 2), 0, 1), ((3, 1), 1, -1)])
def test_die_plus_minus_one_never_goes_below_1_or_above_6(dice, die, delta):
    state = rolled(*dice)
    refused(state, 0, trick("T1", "adjust", die=die, delta=delta), "die_out_of_range")
    assert trick("T1", "adjust", die=die, delta=delta) not in legal_commands(state, 0)


def test_add_both_dice_places_both_and_ends_the_turn():
    state = rolled(2, 5)
    events = decide(state, 0, trick("T4", "both"))
    assert events[-1] == {"type": "placed", "seat": 0, "values": [2, 5]}
    state = act(state, 0, trick("T4", "both"))
    assert state.players[0].dice == (0, 1, 0, 0, 1, 0)
    assert state.players[0].supply == 4
    assert state.turn == 1 and state.roll is None
    assert "T4" in state.discarded


def test_add_both_dice_of_a_pair_puts_two_dice_on_one_card():
    state = act(rolled(6, 6), 0, trick("T4", "both"))
    assert state.players[0].dice == (0, 0, 0, 0, 0, 2)


def test_add_both_dice_can_empty_the_supply_which_forces_shanghai():
    state = rolled(1, 2)
    state = set_player(state, 0, dice=(2, 0, 0, 0, 0, 2))
    state = act(state, 0, trick("T4", "both"))
    assert state.players[0].supply == 0
    state = place(roll(state, 1, 3, 3), 1)
    assert legal_commands(state, 0) == [{"type": "shanghai"}, {"type": "resign"}]


def test_roll_again_is_final_one_new_die_must_be_placed():
    state = rolled(1, 1)
    events = decide(state, 0, trick("T7", "reroll"), ScriptedDice(5, 6))
    assert events[-1] == {"type": "rolled", "seat": 0, "dice": [5, 6]}
    state = act(state, 0, trick("T7", "reroll"), 5, 6)
    assert state.roll == (5, 6) and state.phase == "placement"
    refused(state, 0, trick("T1", "adjust", die=0, delta=1), "trick_already_used")
    refused(state, 0, {"type": "roll"}, "already_rolled")
    assert legal_commands(state, 0) == [
        {"type": "place", "die": 0},
        {"type": "place", "die": 1},
        {"type": "resign"},
    ]
    state = place(state, 0, die=1)
    assert state.players[0].dice == (0, 0, 0, 0, 0, 1)


def test_a_trick_won_in_a_round_is_usable_from_the_next_round_on():
    # T1 lies in the tavern: it is not in anyone's hand during the round.
    deck = ["T1", "german-1", "german-2", "german-3a", "german-3b", "german-4"]
    state = start(first_player=0, deck=deck + [c for c in DECK if c not in deck])
    state = roll(state, 0, 1, 2)
    state = act(state, 0, {"type": "direction", "one_at": "left"})
    refused(state, 0, trick("T1", "adjust", die=0, delta=1), "no_such_trick")
    state = place(state, 0, die=0)  # red's die on T1 (position 1)
    state = place(roll(state, 1, 2, 2), 1)
    state = place(roll(state, 0, 3, 3), 0)
    state = place(roll(state, 1, 4, 4), 1)
    state = act(state, 0, {"type": "shanghai"})
    assert state.players[0].tricks == ("T1",)
    # Round 2: blue starts; red uses the trick right after red's own first roll.
    state = act(roll(state, 1, 2, 2), 1, {"type": "direction", "one_at": "right"})
    state = place(state, 1)
    state = roll(state, 0, 3, 4)
    assert trick("T1", "adjust", die=0, delta=1) in legal_commands(state, 0)


def test_tricks_won_in_round_8_can_never_be_used_but_score_one_point_each():
    state = set_player(start(first_player=0), 0, sailors=("german-1",))
    state = replace(state, round=8, tavern=("T2", "T3", "T5", "T6", "T8", "italian-1"), deck=())
    state = roll(state, 0, 1, 2)
    state = act(state, 0, {"type": "direction", "one_at": "left"})
    state = place(state, 0, die=0)  # T2
    state = place(roll(state, 1, 6, 6), 1)  # italian-1 to blue
    state = place(roll(state, 0, 2, 2), 0)  # T3
    state = replace(place(roll(state, 1, 6, 6), 1), turn=0)
    state = act(state, 0, {"type": "shanghai"})
    assert state.finished
    assert set(state.players[0].tricks) == {"T2", "T3"}
    assert state.result.scores[0].tricks == 2
    assert state.result.scores[0].total == 1 + 2  # german 1 uncontested + 2 tricks


def test_the_variant_card_is_usable_from_round_one_as_wild_or_die_plus_minus_one():
    state = start(first_player=0, extra_wild=True)
    state = act(roll(state, 0, 6, 6), 0, {"type": "direction", "one_at": "left"})
    tricks = [c for c in legal_commands(state, 0) if c["type"] == "trick"]
    # No sailors yet, so no wild; a 6 can only go down.
    assert tricks == [
        trick("X1", "adjust", die=0, delta=-1),
        trick("X1", "adjust", die=1, delta=-1),
    ]
    refused(state, 0, trick("X1", "both"), "wrong_half")
    state = act(state, 0, trick("X1", "adjust", die=1, delta=-1))
    assert state.roll == (6, 5)


def test_an_unused_variant_card_scores_one_point():
    state = start(first_player=0, extra_wild=True)
    assert [s.total for s in score(state.players)] == [1, 1]
