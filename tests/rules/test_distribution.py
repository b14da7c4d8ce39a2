"""Sharing out the tavern after a Shanghai, with the rulebook's worked example."""

from dataclasses import replace

import pytest

from games.rules import player_view
from games.rules.distribution import distribute

from .builders import act, table

TAVERN = ["german-1", "german-2", "dutch-3a", "dutch-4", "spanish-1", "T4"]


def shanghai(state, by=0):
    return act(replace(state, turn=by, phase="turn"), by, {"type": "shanghai"})


@pytest.mark.parametrize("direction", ["left", "right"])
def test_rulebook_example_red_22366_blue_34566(direction):
    state = table(TAVERN, red=[2, 2, 3, 6, 6], blue=[3, 4, 5, 6, 6], direction=direction)
    by_number = {o.number: o for o in distribute(state, 0).cards}
    assert (by_number[1].to, by_number[1].reason) == (None, "unclaimed")
    assert (by_number[2].to, by_number[2].reason) == (0, "alone")
    assert (by_number[3].to, by_number[3].reason, by_number[3].neighbours) == (None, "tie", (4, 4))
    assert (by_number[4].to, by_number[4].reason) == (1, "alone")
    assert (by_number[5].to, by_number[5].reason) == (1, "alone")
    assert (by_number[6].to, by_number[6].reason, by_number[6].neighbours) == (
        1,
        "neighbours",
        (0, 5),
    )
    # The cards follow: in screen order, position 1 is at the chosen end.
    after = shanghai(state)
    card_at = {o.number: o.card for o in distribute(state, 0).cards}
    assert after.players[0].sailors == (card_at[2],)
    assert set(after.players[1].sailors) | set(after.players[1].tricks) == {
        card_at[4],
        card_at[5],
        card_at[6],
    }
    assert set(after.discarded) == {card_at[1], card_at[3]}


def test_the_card_with_more_dice_goes_to_that_player():
    state = table(TAVERN, red=[4, 4, 1], blue=[4, 2])
    outcome = distribute(state, 0).cards[3]
    assert (outcome.dice, outcome.to, outcome.reason) == ((2, 1), 0, "majority")


def test_an_end_card_compares_its_single_neighbour():
    # Card 1 is tied 1:1; only card 2 is beside it: blue's 2 beats red's nothing.
    state = table(TAVERN, red=[1, 3], blue=[1, 2])
    first = distribute(state, 0).cards[0]
    assert (first.neighbours, first.to, first.reason) == ((0, 2), 1, "neighbours")


def test_neighbour_sums_count_pips_so_two_dice_on_a_4_make_8():
    state = table(TAVERN, red=[3, 4, 4], blue=[3, 2, 2, 2])
    third = distribute(state, 0).cards[2]
    assert third.neighbours == (8, 6) and third.to == 0


def test_dice_return_and_won_trick_cards_go_to_the_hand():
    state = table(TAVERN, red=[6, 1], blue=[2])
    after = shanghai(state)
    assert after.players[0].tricks == ("T4",)
    assert all(p.supply == 6 for p in after.players)


def test_the_report_is_shown_to_both_players_from_their_own_side():
    state = table(TAVERN, red=[2, 2, 3, 6, 6], blue=[3, 4, 5, 6, 6])
    after = shanghai(state, by=0)
    red, blue = player_view(after, 0)["last_round"], player_view(after, 1)["last_round"]
    assert red["called_by"] == "me" and blue["called_by"] == "opponent"
    sixth_red, sixth_blue = red["cards"][5], blue["cards"][5]
    assert sixth_red["to"] == "opponent" and sixth_blue["to"] == "me"
    assert sixth_red["my_dice"] == [6, 6] == sixth_blue["opponent_dice"]
    assert (sixth_red["my_neighbours"], sixth_red["opponent_neighbours"]) == (0, 5)
    assert red["cards"][0]["to"] is None and red["cards"][0]["reason"] == "unclaimed"
    assert red["cards"][1]["my_neighbours"] is None  # only where neighbours decided


@pytest.mark.parametrize("direction", ["left", "right"])
def test_a_tie_looks_at_both_neighbours_on_either_side(direction):
    # Card 5 is tied 1:1; red has a 6 beside it, blue a 4 on the other side.
    state = table(TAVERN, red=[5, 6], blue=[5, 4], direction=direction)
    fifth = next(o for o in distribute(state, 0).cards if o.number == 5)
    assert (fifth.neighbours, fifth.to, fifth.reason) == ((6, 4), 0, "neighbours")
