"""The game itself says whether it is rated and, once over, what it did to both ratings."""

import uuid

import pytest
from django.test import Client

from games.access import seating
from games.live.reads import game_now
from games.models import Game
from games.services import commands
from ratings.models import PlayerRating

from ..helpers.ratings import start_game

pytestmark = pytest.mark.django_db


def resign(game, user):
    game.refresh_from_db()
    commands.do_command(game.pk, user, {"type": "resign"}, game.version, str(uuid.uuid4()))
    game.refresh_from_db()


def page_of(game, user) -> str:
    client = Client()
    client.force_login(user)
    return client.get(f"/games/{game.pk}/").content.decode()


def test_a_rated_game_in_progress_says_so_and_has_no_changes_yet(game, players):
    data = game_now(seating(game, players["anna"]))
    assert data["rated"] is True and data["ratings"] is None
    assert "rated ·" in page_of(game, players["anna"])


def test_a_finished_rated_game_shows_both_changes_from_each_side(game, players):
    resign(game, players["anna"])
    anna, bernd = (PlayerRating.objects.get(user=players[n]) for n in ("anna", "bernd"))
    lost, won = round(anna.rating), round(bernd.rating)
    assert lost < 1500 < won
    seen_by_anna = game_now(seating(game, players["anna"]))["ratings"]
    assert seen_by_anna == {
        "me": {"before": 1500, "after": lost, "change": lost - 1500},
        "opponent": {"before": 1500, "after": won, "change": won - 1500},
    }
    seen_by_bernd = game_now(seating(game, players["bernd"]))["ratings"]
    assert seen_by_bernd == {"me": seen_by_anna["opponent"], "opponent": seen_by_anna["me"]}
    html = page_of(game, players["bernd"])
    assert f"you 1500 → {won} (+{won - 1500})" in html
    assert f"anna 1500 → {lost} ({lost - 1500})" in html
    watcher = game_now(seating(game, players["carl"]))["ratings"]
    assert watcher == seen_by_anna  # a watcher sees seat 0's side


def test_a_casual_game_says_its_result_changed_no_rating(players):
    casual = start_game(players, rated=False)
    assert "casual ·" in page_of(casual, players["bernd"])
    resign(casual, players["anna"])
    assert casual.status == Game.Status.FINISHED
    data = game_now(seating(casual, players["bernd"]))
    assert data["rated"] is False and data["ratings"] is None
    assert "A casual game: ratings did not change." in page_of(casual, players["bernd"])
