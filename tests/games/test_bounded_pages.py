"""The players' lists, records, rating chart and ranking cost what a page shows, not the
player's history: lists page by a cursor and give every game exactly once; the record
and the chart are kept as each game ends; the ranking is cached and renewed."""

import dataclasses
import importlib
import random
import re
import types
import uuid
from datetime import timedelta

import pytest
from django.db import connection, transaction
from django.utils import timezone

from games import queries
from games.access import access_game
from games.models import Game, PlayerRecord, Seat
from games.services import commands, invitations, limits
from games.services.endings import end_by_server
from moderation.services import do_annul, do_lift_suspension, do_suspend
from ratings.chart import SERIES_POINTS, extend_series, series_ratings
from ratings.models import PlayerRating, RatingChange

from ..helpers.games import abort_as_before, play_on
from ..helpers.ratings import simulate, start_game

pytestmark = pytest.mark.django_db

T0 = timezone.now().replace(microsecond=0) - timedelta(days=30)


@pytest.fixture
def unlimited(monkeypatch):
    """Many invitations in a test: the hourly limits would refuse the 21st."""
    for name in ("INVITATIONS_PER_HOUR", "INVITATIONS_TO_ONE_PER_DAY"):
        limit = getattr(limits, name)
        monkeypatch.setattr(limits, name, dataclasses.replace(limit, count=10**6))


def new_game(players, rated=False, a="anna", b="bernd"):
    invitation = invitations.do_invite(players[a], to=b, rated=rated)
    return invitations.do_accept_invitation(invitation.pk, players[b])


def end(game, at, reason="adjudicated", winner=0, note=""):
    """End a game as the server does (a moderator, the clock), at the moment ``at``."""
    with transaction.atomic():
        locked = access_game(None, game.pk, lock=True).game
        end_by_server(locked, reason, None if reason == "annulled" else winner, at, note)
    return game.pk


def ended_games(players, n, at, **how):
    return [end(new_game(players), at, **how) for _ in range(n)]


def send(game, user, command):
    game.refresh_from_db()
    return commands.do_command(game.pk, user, command, game.version, str(uuid.uuid4()))


# -- pagination -------------------------------------------------------------------------


def api_walk(client, first="/api/games/?status=finished", between=None):
    seen, url, pages = [], first, 0
    while url:
        response = client.get(url)
        assert response.status_code == 200, response.content
        body = response.json()
        seen += [g["id"] for g in body["games"]]
        url, pages = body["next"], pages + 1
        if between and pages == 1:
            between()
    return seen, pages


def test_the_api_pages_give_every_ended_game_once_also_when_games_end_meanwhile(
    players, clients, unlimited, monkeypatch
):
    monkeypatch.setattr(queries, "FINISHED_PAGE", 7)
    # many games ending at the very same moment, around page boundaries, of every kind
    same = ended_games(players, 17, T0 + timedelta(days=1))
    older = ended_games(players, 6, T0, reason="annulled", note="duplicate accounts")
    older += ended_games(players, 5, T0 - timedelta(hours=1), winner=1)
    running = new_game(players)  # under way: never in the list
    later = []

    def end_more():  # after the first page: these end now, at the top of the list
        later.extend(ended_games(players, 3, timezone.now()))

    seen, pages = api_walk(clients["anna"], between=end_more)
    assert len(seen) == len(set(seen)), "a game on two pages"
    assert set(seen) == set(same + older), "a game on no page"
    assert running.pk not in seen and pages == 4  # 28 games, 7 a page: no empty 5th page
    # newest first, the highest id first among equals
    assert seen == sorted(same, reverse=True) + sorted(older[:6], reverse=True) + sorted(
        older[6:], reverse=True
    )
    seen_again, _ = api_walk(clients["anna"])
    assert seen_again == sorted(later, reverse=True) + seen
    notes = clients["anna"].get("/api/games/?status=finished").json()["games"]
    assert all(g["status"] == "finished" for g in notes[:3])
    # bernd sees the same games from his side
    assert set(api_walk(clients["bernd"])[0]) == set(seen_again)


def test_the_last_page_offers_no_next_and_its_cursor_gives_an_empty_page(players, unlimited):
    ids = ended_games(players, 6, T0)
    first = queries.finished_page(players["anna"], size=3)
    second = queries.finished_page(players["anna"], first.next, size=3)
    assert [g.pk for g in first.games + second.games] == sorted(ids, reverse=True)
    assert second.next is None
    last = Seat.objects.get(game_id=min(ids), user=players["anna"])
    cursor = f"{queries._micros(last.ended_at)}.{last.game_id}"
    assert queries.finished_page(players["anna"], cursor, size=3) == queries.Page([], None)


def test_the_finished_page_links_to_older_games_and_shows_each_game_once(
    players, clients, unlimited, monkeypatch
):
    monkeypatch.setattr(queries, "FINISHED_PAGE", 4)
    ids = ended_games(players, 6, T0) + ended_games(players, 5, T0 + timedelta(hours=2))
    ids += ended_games(players, 2, T0 - timedelta(days=2), reason="annulled", note="a cheat")
    seen, url, pages = [], "/games/finished/", 0
    while url:
        response = clients["anna"].get(url)
        assert response.status_code == 200
        html = response.content.decode()
        seen += [int(i) for i in re.findall(r'href="/games/(\d+)/"', html)]
        if pages == 0:
            ended_games(players, 2, timezone.now())  # ending between two pages
        older = re.search(r'<a href="([^"]+)" rel="next"', html)
        url = "/games/finished/" + older[1] if older else None
        pages += 1
    assert pages == 4 and len(seen) == len(set(seen)) == 13 and set(seen) == set(ids)
    assert "a cheat" in html  # the moderator's note, read for the rows of the page


def test_bad_cursors_are_refused_by_the_api_and_give_the_first_page_in_html(
    players, clients, unlimited
):
    ids = ended_games(players, 2, T0)
    for bad in ("x", "1.2.3", "-1.2", "9" * 18 + ".1", "1." + "9" * 19, "1.9999999999999999999"):
        response = clients["anna"].get("/api/games/", {"status": "finished", "before": bad})
        assert response.status_code == 400, bad
        assert response.json()["error"]["code"] == "bad_cursor"
        page = clients["anna"].get("/games/finished/", {"before": bad})
        assert page.status_code == 200
        assert {int(i) for i in re.findall(r'href="/games/(\d+)/"', page.content.decode())} == set(
            ids
        )
    for bad in ("x", "1.2", "2.1.1", "0." + "9" * 18 + ".1", "1.1." + "9" * 19, "0.1.-1"):
        response = clients["anna"].get("/api/games/", {"status": "active", "after": bad})
        assert response.status_code == 400 and response.json()["error"]["code"] == "bad_cursor"
    response = clients["anna"].get("/api/games/?status=over")
    assert response.status_code == 400 and response.json()["error"]["code"] == "bad_status"


def test_the_active_games_come_a_page_at_a_time_waiting_ones_first(
    players, clients, unlimited, monkeypatch
):
    monkeypatch.setattr(queries, "ACTIVE_PAGE", 3)
    games = [new_game(players, a=a, b=b) for a, b in [("anna", "bernd"), ("bernd", "anna")] * 4]
    ended_games(players, 2, T0)
    seen, pages = api_walk(clients["anna"], "/api/games/")
    assert pages == 3 and len(seen) == len(set(seen)) == 8 and set(seen) == {g.pk for g in games}
    mine = {g.pk for g in Game.objects.filter(status="active", to_move=players["anna"])}
    assert set(seen[: len(mine)]) == mine  # those waiting for anna first


# -- records ----------------------------------------------------------------------------


def counted_from_games(user) -> dict:
    """The record as the games say (what the profile counted before it kept counts)."""
    finished = Game.objects.filter(seats__user=user, status=Game.Status.FINISHED)
    played, won = finished.count(), finished.filter(winner=user).count()
    drawn = finished.filter(winner__isnull=True).count()
    return {"played": played, "won": won, "lost": played - won - drawn, "drawn": drawn}


def test_the_record_counts_wins_losses_draws_and_never_aborted_or_annulled_games(
    players, moderator, unlimited, monkeypatch
):
    anna, bernd = players["anna"], players["bernd"]
    assert queries.record_of(anna) == {"played": 0, "won": 0, "lost": 0, "drawn": 0}
    send(new_game(players), bernd, {"type": "resign"})  # anna wins
    send(new_game(players), anna, {"type": "resign"})  # bernd wins
    assert queries.record_of(anna) == {"played": 2, "won": 1, "lost": 1, "drawn": 0}
    abort_as_before(new_game(players))  # no result (a game from before the rule)
    do_annul(new_game(players).pk, moderator, "duplicate accounts")  # no result
    assert queries.record_of(anna) == {"played": 2, "won": 1, "lost": 1, "drawn": 0}
    end(new_game(players), timezone.now(), winner=0)  # adjudicated to anna
    end(new_game(players), timezone.now(), reason="timeout", winner=1)  # anna ran out of time
    seed = next(
        s for s in range(500) if (r := simulate(s)).winner is None and r.reason == "completed"
    )
    play_on(start_game(players, rng=random.Random(seed), monkeypatch=monkeypatch), seed + 10**6)
    assert queries.record_of(anna) == {"played": 5, "won": 2, "lost": 2, "drawn": 1}
    assert queries.record_of(bernd) == {"played": 5, "won": 2, "lost": 2, "drawn": 1}
    new_game(players, a="carl", b="anna")
    do_suspend(players["carl"].pk, moderator, "abuse")  # adjudicates carl's game to anna
    for user in players.values():
        assert queries.record_of(user) == counted_from_games(user)
    assert queries.record_of(anna)["won"] == 3
    page = Game.objects.filter(seats__user=anna).exclude(status="active").count()
    assert Seat.objects.filter(user=anna, ended_at__isnull=False).count() == page == 8
    assert not Seat.objects.filter(ended_at__isnull=False, game__status="active").exists()


def test_the_migration_fills_seats_and_records_as_the_write_path_keeps_them(
    players, moderator, unlimited
):
    send(new_game(players), players["bernd"], {"type": "resign"})
    send(new_game(players, a="bernd", b="carl"), players["bernd"], {"type": "resign"})
    abort_as_before(new_game(players))
    do_annul(new_game(players).pk, moderator, "no reason at all")
    new_game(players)
    kept = set(PlayerRecord.objects.values_list("user_id", "played", "won", "lost", "drawn"))
    ended = set(Seat.objects.values_list("pk", "ended_at"))
    PlayerRecord.objects.all().delete()
    Seat.objects.update(ended_at=None)
    migration = importlib.import_module(
        "games.migrations.0013_fill_due_times_queue_seats_and_records"
    )
    with connection.cursor() as cursor:
        cursor.execute(migration.FILL_ENDED)
        cursor.execute(migration.FILL_RECORDS)
    assert set(PlayerRecord.objects.values_list("user_id", "played", "won", "lost", "drawn")) == (
        kept
    )
    assert set(Seat.objects.values_list("pk", "ended_at")) == ended


# -- the rating chart -------------------------------------------------------------------


def test_the_stored_rating_series_stays_bounded_and_keeps_the_first_and_the_latest():
    series, every = None, [1500.0]
    for i in range(5000):
        rating = 1500 + (i % 97) - 40 + i / 10
        series = extend_series(series, rating, start=1500)
        every.append(rating)
        kept = series_ratings(series)
        assert len(kept) <= 2 * SERIES_POINTS + 1
        assert kept[0] == 1500 and kept[-1] == round(rating, 1)
    step = series["step"]
    assert step > 1 and series["count"] == len(every)
    assert kept[:-1] == [round(r, 1) for r in every[::step]][: len(kept) - 1]


def test_the_profile_chart_is_drawn_from_the_series_each_rated_game_extends(
    players, clients, unlimited
):
    for loser in ("bernd", "anna", "bernd"):
        send(new_game(players, rated=True), players[loser], {"type": "resign"})
    changes = RatingChange.objects.filter(user=players["anna"]).order_by("created_at", "id")
    history = [changes[0].rating_before] + [c.rating_after for c in changes]
    series = PlayerRating.objects.get(user=players["anna"]).series
    assert series_ratings(series) == [round(r, 1) for r in history]
    migration = importlib.import_module("ratings.migrations.0004_fill_rating_series")
    PlayerRating.objects.update(series=None)
    from django.apps import apps

    migration.fill_series(apps, types.SimpleNamespace(connection=connection))
    assert PlayerRating.objects.get(user=players["anna"]).series == series
    page = clients["carl"].get("/users/anna/").content.decode()
    assert "<polyline" in page and page.count(",") >= 4


# -- the ranking ------------------------------------------------------------------------


def ranked(client) -> list:
    html = client.get("/ranking/").content.decode()
    rows = "".join(re.findall(r"<tbody>(.*?)</tbody>", html, re.S))
    return re.findall(r'href="/users/(\w+)/"', rows)


def test_the_ranking_is_renewed_after_a_rated_game_and_a_suspension(
    players, clients, moderator, unlimited
):
    assert ranked(clients["carl"]) == []
    send(new_game(players, rated=True), players["bernd"], {"type": "resign"})
    assert ranked(clients["carl"]) == ["anna", "bernd"]
    send(new_game(players, rated=True, a="carl", b="anna"), players["anna"], {"type": "resign"})
    assert set(ranked(clients["carl"])) == {"anna", "bernd", "carl"}
    do_suspend(players["carl"].pk, moderator, "abuse", days=3)
    assert set(ranked(clients["bernd"])) == {"anna", "bernd"}
    do_lift_suspension(players["carl"].pk, moderator, "a mistake")
    assert set(ranked(clients["bernd"])) == {"anna", "bernd", "carl"}
