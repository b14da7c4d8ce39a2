"""A player's games filtered (state, opponent, variant, rated, result) and paged by a
cursor; the records per opponent, variant and month kept as each game ends, equal to a
count of the games; the page of live games, the newest move first, without guests'."""

from __future__ import annotations

import dataclasses
import importlib
import random
from collections import Counter
from datetime import timedelta

import pytest
from django.db import connection, transaction
from django.utils import timezone

from accounts import guest_accounts
from games import queries
from games.access import access_game
from games.models import Game, MonthRecord, OpponentRecord, Seat, VariantRecord
from games.services import invitations, limits, upgrades
from games.services.endings import end_by_server
from games.services.player_records import month_of

pytestmark = pytest.mark.django_db

LISTS = importlib.import_module("games.migrations.0018_lists")


@pytest.fixture
def unlimited(monkeypatch):
    for name in ("INVITATIONS_PER_HOUR", "INVITATIONS_TO_ONE_PER_DAY"):
        limit = getattr(limits, name)
        monkeypatch.setattr(limits, name, dataclasses.replace(limit, count=10**6))


def new_game(inviter, guest, *, extra_wild=False, rated=True):
    invitation = invitations.do_invite(
        inviter, to=guest.username, extra_wild=extra_wild, rated=rated
    )
    return invitations.do_accept_invitation(invitation.pk, guest)


def end(game, winner, at=None, reason="adjudicated"):
    """``winner``: a seat, None for a draw; reason "annulled": no result."""
    with transaction.atomic():
        locked = access_game(None, game.pk, lock=True).game
        end_by_server(locked, reason, None if reason == "annulled" else winner, at)
    game.refresh_from_db()
    return game


def fresh_counts():
    """The records counted again from the games themselves."""
    opponents, variants, months = Counter(), Counter(), Counter()
    for game in Game.objects.filter(status=Game.Status.FINISHED).prefetch_related("seats"):
        seats = sorted(game.seats.all(), key=lambda s: s.seat)
        for seat in seats:
            other = seats[1 - seat.seat].user_id
            if game.winner_id is None:
                result = "drawn"
            else:
                result = "won" if game.winner_id == seat.user_id else "lost"
            for counter, key in (
                (opponents, (seat.user_id, other)),
                (variants, (seat.user_id, game.extra_wild)),
                (months, (seat.user_id, month_of(game.finished_at))),
            ):
                counter[(*key, "played")] += 1
                counter[(*key, result)] += 1
    return opponents, variants, months


def kept_counts():
    rows = (
        (OpponentRecord, "opponent_id"),
        (VariantRecord, "extra_wild"),
        (MonthRecord, "month"),
    )
    kept = []
    for model, key in rows:
        counter = Counter()
        for row in model.objects.all():
            for what in ("played", "won", "lost", "drawn"):
                if getattr(row, what):
                    counter[(row.user_id, getattr(row, key), what)] = getattr(row, what)
        kept.append(counter)
    return tuple(kept)


def test_the_records_equal_a_fresh_count_after_many_random_games(players, unlimited):
    rng = random.Random(36)
    people = list(players.values())
    now = timezone.now()
    for _ in range(60):
        a, b = rng.sample(people, 2)
        game = new_game(a, b, extra_wild=rng.random() < 0.4, rated=rng.random() < 0.7)
        if rng.random() < 0.1:
            continue  # still under way: counted nowhere
        reason = "annulled" if rng.random() < 0.1 else "adjudicated"
        at = now - timedelta(days=rng.randrange(0, 120))
        end(game, rng.choice([0, 1, None]), at, reason)
    assert kept_counts() == fresh_counts()
    assert (
        sum(r.played for r in VariantRecord.objects.all())
        == 2 * Game.objects.filter(status=Game.Status.FINISHED).count()
    )


def test_the_migration_counts_the_same_as_the_games_ending(players, unlimited):
    """The migration's fill, run on the games the services ended, writes the same seats'
    columns and the same records."""
    rng = random.Random(7)
    people = list(players.values())
    for _ in range(25):
        a, b = rng.sample(people, 2)
        end(new_game(a, b, extra_wild=rng.random() < 0.5), rng.choice([0, 1, None]))
    end(new_game(people[0], people[1]), None, reason="annulled")
    columns = ("game_id", "user_id", "opponent_id", "outcome", "extra_wild", "rated")
    seats = sorted(Seat.objects.values_list(*columns))
    kept = kept_counts()
    Seat.objects.update(opponent=None, outcome=None, extra_wild=None, rated=None)
    for model in (OpponentRecord, VariantRecord, MonthRecord):
        model.objects.all().delete()
    with connection.cursor() as cursor:
        for sql in (LISTS.FILL_SEATS, LISTS.FILL_OPPONENTS, LISTS.FILL_VARIANTS):
            cursor.execute(sql)
    LISTS.fill_months(None, type("Editor", (), {"connection": connection})())
    assert sorted(Seat.objects.values_list(*columns)) == seats
    assert kept_counts() == kept


def test_a_game_the_previous_release_ended_is_filled_and_counted_once(players):
    anna, bernd = players["anna"], players["bernd"]
    game = end(new_game(anna, bernd, extra_wild=True), 1)
    # as the previous release ends a game: its seats ended, none of this release's columns
    Seat.objects.filter(game=game).update(opponent=None, outcome=None, extra_wild=None)
    for model in (OpponentRecord, VariantRecord, MonthRecord):
        model.objects.all().delete()
    assert upgrades.catch_up()["filled"] == 1
    assert upgrades.catch_up()["filled"] == 0  # a second run finds nothing
    seat = Seat.objects.get(game=game, user=anna)
    assert (seat.opponent_id, seat.outcome, seat.extra_wild) == (bernd.pk, "lost", True)
    assert kept_counts() == fresh_counts()


def test_a_game_the_previous_release_ended_leaves_the_live_page(players):
    game = end(new_game(players["anna"], players["bernd"]), 0)
    Game.objects.filter(pk=game.pk).update(listed=True)  # the previous release's ending
    assert upgrades.catch_up()["unlisted"] == 1
    assert upgrades.catch_up()["unlisted"] == 0
    assert not Game.objects.get(pk=game.pk).listed


# -- the filtered list ------------------------------------------------------------------


@pytest.fixture
def history(players, unlimited):
    """anna's games: against bernd 3 won, 2 lost (one of them with the extra wild card,
    one casual), 1 drawn; against carl 2 won, 1 annulled; 1 under way against each."""
    anna, bernd, carl = players["anna"], players["bernd"], players["carl"]
    made = {}
    at = timezone.now() - timedelta(days=10)

    def ended(name, other, winner, reason="adjudicated", **terms):
        nonlocal at
        at += timedelta(hours=1)
        made[name] = end(new_game(anna, other, **terms), winner, at, reason).pk

    for i in range(3):
        ended(f"won bernd {i}", bernd, 0)
    ended("lost bernd wild", bernd, 1, extra_wild=True)
    ended("lost bernd casual", bernd, 1, rated=False)
    ended("drawn bernd", bernd, None)
    ended("won carl 0", carl, 0)
    ended("won carl 1", carl, 0)
    ended("annulled carl", carl, None, reason="annulled")
    made["active bernd"] = new_game(anna, bernd, extra_wild=True).pk
    made["active carl"] = new_game(carl, anna, rated=False).pk
    return made


def listed(client, url):
    response = client.get(url)
    assert response.status_code == 200, response.content[:300]
    return [g["id"] for g in response.context["games"]], response


@pytest.mark.parametrize(
    ("query", "names"),
    [
        ("", None),  # every game over
        ("?opponent=BERND", ["won bernd", "lost bernd", "drawn bernd"]),
        ("?opponent=bernd&result=won", ["won bernd"]),
        ("?result=lost", ["lost bernd"]),
        ("?result=drawn", ["drawn bernd"]),
        ("?variant=extra_wild", ["lost bernd wild"]),
        ("?rated=casual", ["lost bernd casual"]),
        ("?opponent=carl&result=won&variant=standard&rated=rated", ["won carl"]),
        ("?status=active", ["active"]),
        ("?status=active&opponent=carl", ["active carl"]),
        ("?status=active&variant=extra_wild", ["active bernd"]),
        ("?status=active&rated=casual", ["active carl"]),
        ("?status=active&result=won", []),  # no game under way has a result
        ("?status=active&opponent=anna", []),  # nobody plays themselves
        ("?opponent=anna", []),
        ("?opponent=nobody", []),
    ],
)
def test_the_filters_narrow_the_list(history, clients, query, names):
    ids, response = listed(clients["anna"], "/games/" + query)
    if names is None:
        names = [n for n in history if not n.startswith("active")]
    expected = {pk for name, pk in history.items() if any(name.startswith(n) for n in names)}
    assert set(ids) == expected
    assert len(ids) == len(expected)
    if "nobody" in query:
        assert "There is no player called nobody." in response.content.decode()
    # the API takes the same filters
    status = "" if "status=" in query else "status=finished&"
    api = clients["anna"].get(f"/api/games/?{status}{query.lstrip('?')}")
    assert api.status_code == 200, api.content
    assert {g["id"] for g in api.json()["games"]} == expected


def test_a_filtered_list_pages_by_its_cursor_keeping_the_filters(history, clients, monkeypatch):
    monkeypatch.setattr(queries, "FINISHED_PAGE", 2)
    client = clients["anna"]
    seen, url = [], "/games/?opponent=bernd&result=won"
    pages = 0
    while url:
        ids, response = listed(client, url if url.startswith("/") else "/games/" + url)
        seen += ids
        url, pages = response.context["older"], pages + 1
        if url:
            assert "opponent=bernd" in url and "result=won" in url
    assert pages == 2
    won = [pk for name, pk in history.items() if name.startswith("won bernd")]
    assert seen == sorted(won, reverse=True)  # the last to end first, each once


def test_the_api_pages_with_the_filters_in_next(history, clients, monkeypatch):
    monkeypatch.setattr(queries, "FINISHED_PAGE", 1)
    client = clients["anna"]
    url, seen = "/api/games/?status=finished&opponent=bernd&rated=rated", []
    while url:
        body = client.get(url).json()
        seen += [g["id"] for g in body["games"]]
        url = body["next"]
        if url:
            assert "opponent=bernd" in url and "rated=rated" in url
    assert len(seen) == 5 == len(set(seen))  # bernd's rated games over, each once


@pytest.mark.parametrize(
    "query",
    [
        "variant=wild",
        "rated=yes",
        "result=win",
        "opponent=" + "x" * 151,
    ],
)
def test_the_api_refuses_a_filter_it_does_not_take(clients, query):
    response = clients["anna"].get(f"/api/games/?status=finished&{query}")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "bad_request"
    assert query.split("=")[0] in error["message"]


def test_the_page_says_which_filter_it_refused_and_applies_the_others(history, clients):
    ids, response = listed(clients["anna"], "/games/?result=win&opponent=carl")
    page = response.content.decode()
    assert 'class="error"' in page
    carl = {pk for name, pk in history.items() if name.endswith(("carl 0", "carl 1", "carl"))}
    assert set(ids) == carl - {history["active carl"]}


# -- profiles ---------------------------------------------------------------------------


def test_the_profile_shows_records_per_opponent_variant_and_month(history, clients):
    page = clients["anna"].get("/users/anna/").content.decode()
    records = page[page.index("Most played opponents") :]
    bernd_row = records[records.index(">bernd<") : records.index("</tr>", records.index(">bernd<"))]
    assert '>6</a></td><td class="count">3 · 2 · 1</td>' in bernd_row  # played, won·lost·drawn
    assert "/games/?opponent=bernd" in records
    assert "By variant" in page and "By month" in page
    other = clients["bernd"].get("/users/anna/").content.decode()
    assert "/games/?opponent=anna" in other  # bernd's own games against anna


# -- live games -------------------------------------------------------------------------


def test_the_live_page_lists_games_under_way_newest_move_first_without_guests(
    players, clients, monkeypatch
):
    anna, bernd, carl = players["anna"], players["bernd"], players["carl"]
    older = new_game(anna, bernd)
    newer = new_game(carl, anna)
    over = end(new_game(bernd, carl), 0)
    Game.objects.filter(pk=older.pk).update(last_move_at=timezone.now() - timedelta(hours=2))
    guest = guest_accounts.do_make_guest("203.0.113.9", "en")
    bot = queries.bot_of_level("deckhand")
    guests_game = invitations.do_invite(guest, to=bot.username, rated=False).game  # accepted
    assert not Game.objects.get(pk=guests_game.pk).listed
    response = clients["bernd"].get("/live/")
    assert response.status_code == 200
    ids = [row["game"].pk for row in response.context["rows"]]
    assert ids == [newer.pk, older.pk]
    assert over.pk not in ids and guests_game.pk not in ids
    assert not Game.objects.get(pk=over.pk).listed  # taken off as it ended
    page = response.content.decode()
    assert f'href="/games/{newer.pk}/">Watch game {newer.pk}' in page
    assert f'href="/games/{older.pk}/">Open game {older.pk}' in page  # bernd plays in it

    monkeypatch.setattr(queries, "LIVE_PAGE", 1)
    first = clients["carl"].get("/live/")
    assert [r["game"].pk for r in first.context["rows"]] == [newer.pk]
    second = clients["carl"].get("/live/" + first.context["more"])
    assert [r["game"].pk for r in second.context["rows"]] == [older.pk]
    assert second.context["more"] is None
    mangled = clients["carl"].get("/live/?after=x")
    assert [r["game"].pk for r in mangled.context["rows"]] == [newer.pk]


def test_the_live_page_asks_to_log_in(client):
    response = client.get("/live/")
    assert response.status_code == 302 and "login" in response["Location"]


def test_a_bots_profile_lists_no_guest_among_its_opponents(players, clients):
    guest = guest_accounts.do_make_guest("203.0.113.7", "en")
    bot = queries.bot_of_level("boatswain")
    end(invitations.do_invite(guest, to=bot.username, rated=False).game, 1)
    end(invitations.do_invite(players["anna"], to=bot.username).game, 1)
    assert OpponentRecord.objects.filter(user=bot).count() == 2  # both counted
    shown = queries.records_of(bot)["opponents"]
    assert [r.opponent for r in shown] == [players["anna"]]
