"""What a player's pages cost does not grow with their history: the same statements for
10 games as for 300, and on PostgreSQL, with enough rows that reading a whole table
would tempt the planner, no statement of the profile, the lobby or the finished list
reads all of games, seats or users."""

import re
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts.models import User
from games.models import Game, Seat
from ratings.chart import extend_series
from ratings.models import PlayerRating, RatingChange

pytestmark = pytest.mark.django_db

PAGES = (
    "/",
    "/games/finished/",
    "/api/games/",
    "/api/games/?status=finished",
    "/users/anna/",
    "/users/ANNA/",
    "/games/?opponent=bernd&result=won",
    "/games/?variant=extra_wild&rated=rated",
    "/games/?status=active&opponent=carl",
    "/api/games/?status=finished&opponent=carl&result=lost",
    "/live/",
)
BIG_TABLES = ("games_game", "games_seat", "accounts_user")


def add_games(anna, opponents, n, active=0, start=0):
    """``n`` finished games of anna's (and ``active`` under way), written in bulk: the
    pages read these rows as the services leave them (the seats' ended_at, a rating
    change for each rated game). The games have no event log: they are removed by the
    fixture before the log is checked."""
    now = timezone.now()
    games, seats, changes = [], [], []
    for i in range(start, start + n + active):
        over = i < start + n
        moment = now - timedelta(hours=10_000 - i)
        opponent = opponents[i % len(opponents)]
        games.append(
            Game(
                state={},
                status=Game.Status.FINISHED if over else Game.Status.ACTIVE,
                winner=(anna if i % 3 else opponent) if over else None,
                listed=not over,
                result_reason="completed" if over else "",
                score0=10,
                score1=8,
                last_move_at=moment,
                finished_at=moment if over else None,
                to_move=None if over else anna,
                deadline=None if over else now + timedelta(days=3),
                turn_started_at=moment,
            )
        )
    Game.objects.bulk_create(games)
    for game in games:
        over = game.status == Game.Status.FINISHED
        pair = (anna, opponents[game.pk % len(opponents)])
        for seat, user in enumerate(pair):
            # the columns player_records copies at the end, for the filtered lists
            won = game.winner_id == user.pk
            filled = {
                "opponent": pair[1 - seat],
                "outcome": "won" if won else "lost",
                "extra_wild": game.pk % 4 == 0,
                "rated": True,
            }
            seats.append(
                Seat(
                    game=game,
                    user=user,
                    seat=seat,
                    ended_at=game.finished_at if over else None,
                    **(filled if over else {}),
                )
            )
        if over:
            changes.append(
                RatingChange(
                    game_id=game.pk,
                    user=anna,
                    opponent=opponents[0],
                    score=1,
                    rating_before=1500,
                    deviation_before=200,
                    volatility_before=0.06,
                    rating_after=1510,
                    deviation_after=190,
                    volatility_after=0.06,
                )
            )
    Seat.objects.bulk_create(seats)
    RatingChange.objects.bulk_create(changes)
    rating, _ = PlayerRating.objects.get_or_create(user=anna)
    series = rating.series
    for _ in changes:
        series = extend_series(series, 1510, start=1500)
    rating.games += len(changes)
    rating.series = series
    rating.save()


@pytest.fixture
def bulk_cleanup():
    yield
    with connection.cursor() as cursor:  # bulk games have no event log to check
        cursor.execute("DELETE FROM ratings_ratingchange")
        cursor.execute("DELETE FROM games_seat WHERE game_id IN (SELECT id FROM games_game)")
        cursor.execute("DELETE FROM games_game WHERE state = '{}'")


def statements(client, url) -> list:
    with CaptureQueriesContext(connection) as captured:
        response = client.get(url)
    assert response.status_code == 200, (url, response.content[:300])
    return [q["sql"] for q in captured.captured_queries]


def test_the_pages_cost_the_same_statements_for_10_games_as_for_300(players, clients, bulk_cleanup):
    anna, others = players["anna"], [players["bernd"], players["carl"]]
    add_games(anna, others, 10, active=2)
    clients["anna"].get("/")  # a first visit makes the player's next server seed, once
    few = {url: len(statements(clients["anna"], url)) for url in PAGES}
    add_games(anna, others, 290, start=12)
    many = {url: len(statements(clients["anna"], url)) for url in PAGES}
    print("statements per page, 10 and 300 games:", few, many)
    assert many == few


@pytest.fixture
def large(players, postgres_only, bulk_cleanup):
    """2,000 players, 20,000 games: anna has 3,000 of them over and 3 under way."""
    User.objects.bulk_create(
        [User(username=f"player{i}", password="!") for i in range(2000)], batch_size=1000
    )
    crowd = list(User.objects.filter(username__startswith="player"))
    add_games(players["anna"], crowd, 3000, active=3)
    now = timezone.now()
    games = Game.objects.bulk_create(
        [
            Game(state={}, status=Game.Status.FINISHED, finished_at=now - timedelta(minutes=i))
            for i in range(17_000)
        ],
        batch_size=2000,
    )
    seats = []
    for i, game in enumerate(games):
        a, b = crowd[i % 2000], crowd[(i * 7 + 1) % 2000]
        if a == b:
            b = crowd[(i + 1) % 2000]
        ended = {"ended_at": game.finished_at, "outcome": "drawn", "rated": i % 10 > 0}
        ended["extra_wild"] = i % 3 == 0
        seats += [
            Seat(game=game, user=a, seat=0, opponent=b, **ended),
            Seat(game=game, user=b, seat=1, opponent=a, **ended),
        ]
    Seat.objects.bulk_create(seats, batch_size=5000)
    with connection.cursor() as cursor:
        for table in BIG_TABLES:
            cursor.execute(f"ANALYZE {table}")
    return players


def plans_of(sqls: list) -> list:
    plans = []
    with connection.cursor() as cursor:
        for sql in sqls:
            if not sql.lstrip().upper().startswith("SELECT"):
                continue
            if not any(table in sql for table in BIG_TABLES):
                continue
            cursor.execute("EXPLAIN " + sql)
            plans.append((sql, "\n".join(row[0] for row in cursor.fetchall())))
    return plans


def test_the_profile_the_lobby_and_the_finished_list_read_no_whole_table(large, clients):
    client = clients["anna"]
    first = client.get("/api/games/?status=finished").json()
    deep = client.get(first["next"]).json()["next"]  # a cursor some way into the history
    urls = [
        "/",
        "/users/Anna/",
        "/games/finished/",
        "/games/finished/?before=" + deep.split("before=")[1],
    ]
    urls += ["/api/games/?status=active", deep]
    for url in urls:
        for sql, plan in plans_of(statements(client, url)):
            scans = re.findall(r"Seq Scan on (\w+)", plan)
            assert not set(scans) & set(BIG_TABLES), f"{url}\n{sql}\n{plan}"
    with CaptureQueriesContext(connection) as lookup:
        User.objects.filter(username__iexact="ANNA", is_active=True).first()
    ((_, plan),) = plans_of([lookup.captured_queries[0]["sql"]])
    assert "user_username_upper_idx" in plan, plan


# Each filter of a player's list, alone and together, and the index its page is read on.
FILTERED = {
    "/games/?result=won": "seat_ended_list_idx",
    "/games/?result=drawn": "seat_ended_list_idx",
    "/games/?variant=extra_wild": "seat_ended_list_idx",
    "/games/?rated=casual": "seat_ended_list_idx",
    "/games/?variant=standard&rated=rated&result=lost": "seat_ended_list_idx",
    "/games/?opponent=player7": "seat_opponent_idx",
    "/games/?opponent=player7&result=won&variant=standard&rated=rated": "seat_opponent_idx",
    "/api/games/?status=finished&opponent=player7&result=lost": "seat_opponent_idx",
    "/api/games/?status=finished&rated=casual&variant=extra_wild": "seat_ended_list_idx",
}


def test_every_filter_of_the_list_reads_its_page_on_an_index(large, clients):
    client = clients["anna"]
    for url, index in FILTERED.items():
        plans = [plan for sql, plan in plans_of(statements(client, url)) if "games_seat" in sql]
        assert any(index in plan for plan in plans), f"{url}\n" + "\n\n".join(plans)
        print(url, "\n", next(plan for plan in plans if index in plan))
        for plan in plans:
            scans = re.findall(r"Seq Scan on (\w+)", plan)
            assert not set(scans) & set(BIG_TABLES), f"{url}\n{plan}"
        # the page in the index's order: no sort of the player's seats
        assert not any("Sort" in plan for plan in plans if index in plan), plans


def test_the_live_games_are_read_newest_move_first_on_their_index(large, clients):
    """2,000 games under way among the crowd, as on the growth benchmark's large site."""
    crowd = list(User.objects.filter(username__startswith="player")[:2000])
    now = timezone.now()
    games = Game.objects.bulk_create(
        [
            Game(state={}, listed=i % 20 > 0, last_move_at=now - timedelta(minutes=i * 7 % 2000))
            for i in range(2000)
        ]
    )
    Seat.objects.bulk_create(
        [
            Seat(game=game, user=crowd[(i + k * 7) % len(crowd)], seat=k)
            for i, game in enumerate(games)
            for k in (0, 1)
        ]
    )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE games_game")
    client = clients["anna"]
    second = client.get("/live/").context["more"]
    for url in ("/live/", "/live/" + second):
        plans = [plan for sql, plan in plans_of(statements(client, url)) if "listed" in sql]
        assert plans and all("game_live_idx" in plan for plan in plans), plans
        assert not any("Sort" in plan for plan in plans), plans
        print(url, "\n", plans[0])
