"""Which endings change ratings, and by how much."""

import random
import uuid
from datetime import timedelta

import pytest
from django.utils import timezone

from games.models import Game
from games.services import commands, endings
from moderation.services import do_adjudicate, do_annul, do_suspend
from ratings import glicko2
from ratings.models import PlayerRating, RatingChange
from ratings.services import apply_result

from ..helpers.games import abort_as_before, play_on
from ..helpers.ratings import simulate, start_game

pytestmark = pytest.mark.django_db


def send(game, user, command):
    game.refresh_from_db()
    return commands.do_command(game.pk, user, command, game.version, str(uuid.uuid4()))


def ratings_of(players):
    return {
        r.user.username: (r.rating, r.deviation, r.volatility, r.games, r.wins, r.draws, r.losses)
        for r in PlayerRating.objects.select_related("user").filter(user__in=players.values())
    }


def assert_rated(game, winner, loser):
    """Both players were new: the winner gains what the loser loses, with two changes."""
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED and game.winner == winner
    won, lost = PlayerRating.objects.get(user=winner), PlayerRating.objects.get(user=loser)
    expected_win = glicko2.rate(glicko2.Rating(), [(glicko2.Rating(), 1)])
    assert won.rating == pytest.approx(expected_win.rating) and won.rating > 1500
    assert lost.rating == pytest.approx(3000 - expected_win.rating) and lost.rating < 1500
    assert won.deviation == pytest.approx(expected_win.deviation) and won.deviation < 350
    assert (won.games, won.wins, won.draws, won.losses) == (1, 1, 0, 0)
    assert (lost.games, lost.wins, lost.draws, lost.losses) == (1, 0, 0, 1)
    changes = {c.user_id: c for c in RatingChange.objects.filter(game_id=game.pk)}
    assert set(changes) == {winner.pk, loser.pk}
    assert (changes[winner.pk].score, changes[loser.pk].score) == (1, 0)
    for change, row in ((changes[winner.pk], won), (changes[loser.pk], lost)):
        assert (change.rating_before, change.deviation_before, change.volatility_before) == (
            1500,
            350,
            0.06,
        )
        assert (change.rating_after, change.deviation_after, change.volatility_after) == (
            row.rating,
            row.deviation,
            row.volatility,
        )


def test_a_resignation_rates_both_players(game, players):
    send(game, players["anna"], {"type": "resign"})
    assert_rated(game, winner=players["bernd"], loser=players["anna"])


def test_a_timeout_rates_both_players(game, players):
    game.refresh_from_db()
    late = game.to_move
    other = players["bernd"] if late == players["anna"] else players["anna"]
    assert endings.do_timeout(game.pk, now=game.deadline + timedelta(seconds=1))
    assert_rated(game, winner=other, loser=late)


def test_adjudication_after_a_suspension_rates_both_players(game, players, moderator):
    do_suspend(players["anna"].pk, moderator, "cheating", days=3)
    assert_rated(game, winner=players["bernd"], loser=players["anna"])


def test_a_moderators_adjudication_rates_both_players(game, players, moderator):
    do_adjudicate(game.pk, moderator, players["anna"], "bernd left")
    assert_rated(game, winner=players["anna"], loser=players["bernd"])


def test_a_casual_game_changes_no_rating(players):
    casual = start_game(players, rated=False)
    assert casual.rated is False
    send(casual, players["anna"], {"type": "resign"})
    casual.refresh_from_db()
    assert casual.status == Game.Status.FINISHED and casual.winner == players["bernd"]
    assert not RatingChange.objects.exists() and not PlayerRating.objects.exists()


@pytest.fixture
def rated_before(players):
    """anna and bernd already have ratings from one rated game (bernd won it)."""
    first = start_game(players)
    send(first, players["anna"], {"type": "resign"})
    return ratings_of(players)


def test_an_aborted_game_leaves_the_ratings_alone(rated_before, players):
    game = start_game(players)
    game.refresh_from_db()
    game = abort_as_before(game)  # a game from before the rule that a dealt game is not aborted
    assert game.status == Game.Status.ABORTED and game.rated
    assert not RatingChange.objects.filter(game_id=game.pk).exists()
    assert ratings_of(players) == rated_before


def test_an_annulled_game_leaves_the_ratings_alone(rated_before, players, moderator):
    game = start_game(players)
    send(game, game.to_move, {"type": "roll"})
    do_annul(game.pk, moderator, "a bug in the dice")
    game.refresh_from_db()
    assert game.status == Game.Status.ANNULLED and game.rated
    assert not RatingChange.objects.filter(game_id=game.pk).exists()
    assert ratings_of(players) == rated_before


def test_the_next_game_starts_from_the_ratings_after_the_last(rated_before, players):
    game = start_game(players)
    send(game, players["bernd"], {"type": "resign"})
    anna, bernd = players["anna"], players["bernd"]
    change = RatingChange.objects.get(game_id=game.pk, user=anna)
    assert change.rating_before == rated_before["anna"][0] and change.score == 1
    before = {name: glicko2.Rating(*rated_before[name][:3]) for name in ("anna", "bernd")}
    expected = glicko2.rate(before["anna"], [(before["bernd"], 1)])
    assert change.rating_after == pytest.approx(expected.rating)
    assert PlayerRating.objects.get(user=bernd).games == 2
    assert PlayerRating.objects.get(user=bernd).rating == pytest.approx(
        glicko2.rate(before["bernd"], [(before["anna"], 0)]).rating
    )


def test_rating_a_game_twice_changes_nothing(game, players):
    send(game, players["anna"], {"type": "resign"})
    game.refresh_from_db()
    before = ratings_of(players)
    assert apply_result(game, [players["anna"], players["bernd"]]) == []
    assert ratings_of(players) == before
    assert RatingChange.objects.filter(game_id=game.pk).count() == 2


def test_a_drawn_game_scores_half_a_point_each(players, monkeypatch):
    # Find, with the engine alone, dice and choices that end in equal points; then play
    # exactly that game through the server (its dice replaced by the same generator).
    seed = next(
        s for s in range(500) if (r := simulate(s)).winner is None and r.reason == "completed"
    )
    game = start_game(players, rng=random.Random(seed), monkeypatch=monkeypatch)
    play_on(game, seed=seed + 1_000_000)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED and game.result_reason == "completed"
    assert game.winner is None and game.score0 == game.score1
    changes = RatingChange.objects.filter(game_id=game.pk)
    assert sorted(c.score for c in changes) == [0.5, 0.5]
    for row in PlayerRating.objects.filter(user__in=[players["anna"], players["bernd"]]):
        assert (row.games, row.wins, row.draws, row.losses) == (1, 0, 1, 0)
        assert row.rating == pytest.approx(1500) and row.deviation < 350


def test_a_player_back_after_idle_months_is_rated_with_a_grown_deviation(rated_before, players):
    """Three months without a rated game are three rating periods without games."""
    anna, bernd = players["anna"], players["bernd"]
    PlayerRating.objects.filter(user=anna).update(
        updated_at=timezone.now() - timedelta(days=3 * 30 + 5)
    )
    game = start_game(players)
    send(game, bernd, {"type": "resign"})
    stored = {name: glicko2.Rating(*rated_before[name][:3]) for name in ("anna", "bernd")}
    grown = glicko2.idle(glicko2.idle(glicko2.idle(stored["anna"])))
    assert grown.deviation > stored["anna"].deviation and grown.rating == stored["anna"].rating
    changes = {c.user_id: c for c in RatingChange.objects.filter(game_id=game.pk)}
    assert changes[anna.pk].deviation_before == pytest.approx(grown.deviation)
    assert changes[bernd.pk].deviation_before == pytest.approx(stored["bernd"].deviation)
    expected = glicko2.rate(grown, [(stored["bernd"], 1)])
    assert changes[anna.pk].rating_after == pytest.approx(expected.rating)
    assert changes[bernd.pk].rating_after == pytest.approx(
        glicko2.rate(stored["bernd"], [(grown, 0)]).rating
    )
