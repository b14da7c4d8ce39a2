"""The ranking page, the rating on a profile, the read-only admin."""

import re
import uuid

import pytest
from django.test import Client

from games.services import commands
from ratings.models import PlayerRating, RatingChange
from ratings.queries import ranking

from ..helpers.i18n import unlocalised_svg
from ..helpers.ratings import start_game

pytestmark = pytest.mark.django_db


def rate(user, rating, deviation, games, wins, draws=0):
    return PlayerRating.objects.create(
        user=user,
        rating=rating,
        deviation=deviation,
        games=games,
        wins=wins,
        draws=draws,
        losses=games - wins - draws,
    )


@pytest.fixture
def table(django_user_model, players):
    """Established: bernd 1710, anna 1580, dora 1490; provisional: carl 1800; eve: no game."""
    dora = django_user_model.objects.create_user("dora", password="x")
    eve = django_user_model.objects.create_user("eve", password="x")
    rate(players["anna"], 1580.4, 60, games=40, wins=22, draws=2)
    rate(players["bernd"], 1709.6, 55, games=50, wins=30)
    rate(dora, 1490, 100, games=12, wins=3)
    rate(players["carl"], 1800, 200, games=2, wins=2)
    PlayerRating.objects.create(user=eve)


def rows(html, table_id):
    section = html.split(f'id="{table_id}"', 1)[1].split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    cells = re.findall(r"<tr>(.*?)</tr>", section, re.S)
    return [
        [re.sub(r"<[^>]+>", "", c).strip() for c in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
        for row in cells
    ]


def test_the_ranking_lists_established_players_by_rating_then_provisional_ones(table):
    response = Client().get("/ranking/")  # anyone, logged in or not
    assert response.status_code == 200
    html = response.content.decode()
    assert rows(html, "ranked") == [
        ["1", "bernd", "1710 ± 110", "50", "60%"],
        ["2", "anna", "1580 ± 120", "40", "55%"],
        ["3", "dora", "1490 ± 200", "12", "25%"],
    ]
    assert rows(html, "provisional") == [["–", "carl", "1800? ± 400", "2", "100%"]]
    assert "/users/eve/" not in html  # no rated game yet
    assert '<a href="/users/bernd/">bernd</a>' in html
    assert "provisional" in html and "110" in html


def test_the_ranking_is_one_query_and_skips_suspended_players(
    table, players, django_assert_num_queries
):
    with django_assert_num_queries(1):
        names = [r.user.username for r in ranking()]
    assert names == ["bernd", "anna", "dora", "carl"]
    from django.utils import timezone

    players["bernd"].suspended_until = timezone.now() + timezone.timedelta(days=3)
    players["bernd"].save()
    assert [r.user.username for r in ranking()] == ["anna", "dora", "carl"]
    with django_assert_num_queries(1):
        Client().get("/ranking/")


def test_the_nav_links_to_the_ranking(clients):
    assert 'href="/ranking/">Ranking</a>' in Client().get("/").content.decode()
    assert 'href="/ranking/">Ranking</a>' in clients["anna"].get("/").content.decode()


def test_the_profile_shows_the_rating_and_its_history(players, clients):
    for loser in ("anna", "bernd", "anna"):
        game = start_game(players)
        commands.do_command(
            game.pk, players[loser], {"type": "resign"}, game.version, str(uuid.uuid4())
        )
    html = Client().get("/users/bernd/").content.decode()
    rating = PlayerRating.objects.get(user=players["bernd"])
    assert f"<strong>{round(rating.rating)}</strong>" in html
    assert "after 3 rated games" in html
    svg = html.split("<svg", 1)[1].split("</svg>", 1)[0]
    assert "<title" in svg and "Rating history of bernd" in svg and "<desc" in svg
    points = re.search(r'<polyline points="([^"]+)"', svg).group(1).split()
    # the start (1500), then one point after each of the 3 rated games
    assert len(points) == 4 == RatingChange.objects.filter(user=players["bernd"]).count() + 1
    history = RatingChange.objects.filter(user=players["bernd"]).order_by("created_at", "id")
    shown = [1500] + [round(c.rating_after) for c in history]
    assert f">{max(shown)}</text>" in svg and f">{min(shown)}</text>" in svg
    last_games = " ".join(html.split("Last rated games", 1)[1].split())
    for change in history:
        assert f'href="/games/{change.game_id}/"' in last_games
    assert "against anna: won, " in last_games and "against anna: lost, " in last_games


@pytest.mark.parametrize("language", ["de", "fr", "it"])
def test_the_rating_chart_draws_the_same_in_every_language(players, clients, language):
    """Coordinates are never written with a decimal comma: "150,5" draws elsewhere."""
    for loser in ("anna", "bernd", "anna"):
        game = start_game(players)
        commands.do_command(
            game.pk, players[loser], {"type": "resign"}, game.version, str(uuid.uuid4())
        )
    players["carl"].language = language
    players["carl"].save(update_fields=["language"])
    html = clients["carl"].get("/users/bernd/").content.decode()
    assert "<svg" in html and unlocalised_svg(html) == []


def test_a_player_without_rated_games_is_unrated(players, clients):
    html = clients["carl"].get("/users/carl/").content.decode()
    assert "Unrated" in html and "<svg" not in html


def test_the_admin_shows_ratings_read_only(players, game, admin_client):
    commands.do_command(game.pk, players["anna"], {"type": "resign"}, game.version, "x1")
    rating = PlayerRating.objects.get(user=players["anna"])
    change = RatingChange.objects.get(user=players["anna"])
    assert admin_client.get("/admin/ratings/playerrating/").status_code == 200
    assert admin_client.get("/admin/ratings/ratingchange/").status_code == 200
    page = admin_client.get(f"/admin/ratings/playerrating/{rating.pk}/change/")
    assert page.status_code == 200 and 'name="rating"' not in page.content.decode()
    assert admin_client.get("/admin/ratings/playerrating/add/").status_code == 403
    assert admin_client.post(f"/admin/ratings/ratingchange/{change.pk}/delete/").status_code == 403
    assert PlayerRating.objects.get(pk=rating.pk).rating == rating.rating
    game_page = admin_client.get(f"/admin/games/game/{game.pk}/change/").content.decode()
    assert "Rated" in game_page and 'name="rated"' not in game_page  # set by the invitation only
