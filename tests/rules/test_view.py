"""What a player sees: their own side, nothing secret."""

import json
import random
from dataclasses import replace

from games.rules import legal_commands, new_game, player_view

from .builders import act, place, roll, start

KEYS = {
    "status",
    "round",
    "deck_count",
    "turn",
    "start_player",
    "direction",
    "roll",
    "tavern",
    "me",
    "opponent",
    "legal",
    "last_round",
    "score_table",
    "projected",
    "result",
}


def test_view_has_the_documented_keys_and_is_json():
    view = player_view(start(), 0)
    assert set(view) >= KEYS
    assert json.loads(json.dumps(view)) == view
    assert {"supply", "placed_this_round", "sailors", "tricks", "trick_used_this_round"} <= set(
        view["me"]
    )
    assert len(view["tavern"]) == 6


def test_both_players_see_the_same_card_order_with_me_and_opponent_swapped():
    state = roll(start(first_player=0), 0, 2, 5)
    state = place(act(state, 0, {"type": "direction", "one_at": "right"}), 0, die=0)
    red, blue = player_view(state, 0), player_view(state, 1)
    assert [s["card"] for s in red["tavern"]] == [s["card"] for s in blue["tavern"]]
    assert [s["number"] for s in red["tavern"]] == [6, 5, 4, 3, 2, 1]
    assert red["tavern"][4]["my_dice"] == [2] == blue["tavern"][4]["opponent_dice"]
    assert red["turn"] == "opponent" and blue["turn"] == "me"
    assert red["start_player"] == "me" and blue["start_player"] == "opponent"
    assert red["me"]["supply"] == 5 == blue["opponent"]["supply"]


def test_numbers_show_only_once_the_direction_is_set():
    state = roll(start(), 0, 1, 2)
    assert [s["number"] for s in player_view(state, 0)["tavern"]] == [None] * 6
    assert player_view(state, 1)["roll"] == {"dice": [1, 2], "by": "opponent"}


def test_legal_is_the_viewers_own_legal_commands():
    state = roll(start(), 0, 1, 2)
    assert player_view(state, 0)["legal"] == legal_commands(state, 0)
    assert player_view(state, 1)["legal"] == [{"type": "resign"}]


def test_the_deck_order_never_shows():
    state, _ = new_game(random.Random(5))
    shuffled = list(state.deck)
    random.Random(9).shuffle(shuffled)
    other_order = replace(state, deck=tuple(shuffled))
    for seat in (0, 1):
        assert player_view(state, seat) == player_view(other_order, seat)
    assert player_view(state, 0)["deck_count"] == 42


def test_score_table_counts_what_is_still_to_come():
    view = player_view(start(), 0)
    rows = {row["nation"]: row for row in view["score_table"]["nations"]}
    assert rows["german"] == {
        "nation": "german",
        "me": 0,
        "opponent": 0,
        "remaining_cards": 5,
        "remaining_points": 13,
    }
    assert view["score_table"]["tricks"]["remaining_cards"] == 8
    assert len(view["score_table"]["still_to_come"]) == 48
