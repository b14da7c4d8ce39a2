import random

from games.rules import DECK, new_game, player_view
from games.rules.cards import EXTRA_WILD_IDS


def test_new_game_shuffles_the_48_cards_and_deals_six():
    state, events = new_game(random.Random(1))
    started, dealt = events
    assert started["type"] == "game_started" and sorted(started["deck"]) == sorted(DECK)
    assert started["deck"] != list(DECK)
    assert dealt == {
        "type": "round_started",
        "round": 1,
        "start_player": started["first_player"],
        "tavern": started["deck"][:6],
    }
    assert list(state.tavern) == started["deck"][:6]
    assert len(state.deck) == 42 and state.round == 1


def test_shuffle_and_start_player_come_from_the_rng():
    decks = {tuple(new_game(random.Random(seed))[1][0]["deck"]) for seed in range(20)}
    firsts = {new_game(random.Random(seed))[0].start_player for seed in range(20)}
    assert len(decks) == 20
    assert firsts == {0, 1}
    assert new_game(random.Random(7))[1] == new_game(random.Random(7))[1]


def test_the_start_player_is_on_turn_and_must_roll():
    state, _ = new_game(random.Random(3))
    assert state.turn == state.start_player
    assert player_view(state, state.start_player)["legal"] == [
        {"type": "roll"},
        {"type": "resign"},
    ]


def test_plain_game_gives_no_trick_cards():
    state, _ = new_game(random.Random(3))
    assert all(p.tricks == () for p in state.players)


def test_extra_wild_variant_gives_each_player_one_extra_trick_card():
    state, events = new_game(random.Random(3), extra_wild=True)
    assert events[0]["extra_wild"] is True
    assert state.players[0].tricks == (EXTRA_WILD_IDS[0],)
    assert state.players[1].tricks == (EXTRA_WILD_IDS[1],)
    view = player_view(state, 0)
    assert view["me"]["tricks"] == [
        {"id": "X1", "action": "adjust", "extra": True, "usable": True, "block": None}
    ]
    assert view["extra_wild"] is True
