import pytest
from django.utils import translation

from games.access import seating
from games.live.reads import game_now
from games.services import commands
from games.words import describe_events, shared_out

from ..helpers.games import on_turn

pytestmark = pytest.mark.django_db


def test_commands_in_words():
    assert describe_events([{"type": "rolled", "seat": 0, "dice": [2, 5]}]) == "rolled 2 and 5"
    assert (
        describe_events(
            [
                {"type": "trick_played", "seat": 0, "card": "T7", "half": "reroll"},
                {"type": "rolled", "seat": 0, "dice": [6, 6]},
            ]
        )
        == "used Roll again, rolled 6 and 6"
    )
    assert (
        describe_events(
            [
                {
                    "type": "trick_played",
                    "seat": 1,
                    "card": "T1",
                    "half": "adjust",
                    "die": 1,
                    "delta": -1,
                }
            ]
        )
        == "used Die ±1 (−1 on die 2)"
    )
    assert describe_events([{"type": "placed", "seat": 0, "values": [3, 4]}]) == (
        "placed the 3 and the 4"
    )


def test_the_game_json_tells_the_recent_actions_from_each_side(game, clients, players):
    name, _, other = on_turn(game, clients)
    commands.do_command(game.pk, players[name], {"type": "roll"}, game.version, "a")
    game.refresh_from_db()
    mine = game_now(seating(game, players[name]))["recent"]
    theirs = game_now(seating(game, players[other]))["recent"]
    assert mine[0]["by"] == "me" and theirs[0]["by"] == "opponent"
    assert mine[0]["text"].startswith("rolled ")


@pytest.mark.parametrize(
    ("language", "one", "two"),
    [
        ("en", "1 card to you", "2 cards to you"),
        ("de", "1 Karte an dich", "2 Karten an dich"),
        ("fr", "1 carte pour vous", "2 cartes pour vous"),
        ("it", "1 carta a te", "2 carte a te"),
    ],
)
def test_a_round_end_counts_its_cards_in_each_language(language, one, two):
    """ "1 cards to you" no more: the count meets its noun through ngettext."""

    def report(mine):
        cards = [{"to": "me"}] * mine + [{"to": "opponent"}] * 3 + [{"to": None}]
        return {"round": 2, "cards": cards}

    with translation.override(language):
        assert one in shared_out(report(1), "anna")
        assert two in shared_out(report(2), "anna")
