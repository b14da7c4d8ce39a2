"""End-of-game scoring, with the rulebook's worked example."""

from games.rules import player_view
from games.rules.examples import BLUE_CREW, RED_CREW
from games.rules.scoring import nation_points, score, winner_of
from games.rules.state import Player


def test_rulebook_example_red_7_blue_8():
    """The rulebook's crews (the rules page shows them, games.rules.examples)."""
    red, blue = RED_CREW, BLUE_CREW
    red_score, blue_score = score((red, blue))
    assert dict(red_score.by_nation)["spanish"] == 7
    assert dict(red_score.by_nation)["french"] == dict(blue_score.by_nation)["french"] == 0
    assert dict(blue_score.by_nation)["american"] == 6
    assert dict(blue_score.by_nation)["chinese"] == 1
    assert (red_score.total, blue_score.total, blue_score.tricks) == (7, 8, 1)
    assert winner_of((red_score, blue_score)) == 1


def test_the_stronger_crew_scores_the_weaker_and_a_tie_scores_nothing():
    assert nation_points(7, 6) == 6
    assert nation_points(6, 7) == 0
    assert nation_points(5, 5) == 0
    assert nation_points(4, 0) == 4
    assert nation_points(0, 4) == 0


def test_equal_points_is_a_draw():
    red = Player(sailors=("german-3a",))
    blue = Player(sailors=("dutch-2",), tricks=("T1",))
    scores = score((red, blue))
    assert scores[0].total == scores[1].total == 3
    assert winner_of(scores) is None


def test_projected_score_is_shown_from_each_side():
    from .builders import set_player, start

    state = set_player(start(), 0, sailors=("german-4",))
    assert player_view(state, 0)["projected"]["me"]["total"] == 4
    assert player_view(state, 1)["projected"]["opponent"]["by_nation"]["german"] == 4
