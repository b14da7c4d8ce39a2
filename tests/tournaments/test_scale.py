"""A 256-player tournament's draw and the start of all its games in one transaction, in a
number of statements that grows only with the statement chunks, not with the games."""

import datetime as dt
import math

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games.models import Event, Game, Seat
from games.services.starting import CHUNK
from tournaments.models import Entry, Match, MatchGame, Tournament
from tournaments.services import stages

from .conftest import open_tournament

pytestmark = pytest.mark.django_db


def start_counting(make_players, staff, n, prefix):
    players = make_players(n, prefix=prefix)
    tournament = open_tournament(staff, "groups_knockout", group_size=8, advance=2)
    Entry.objects.bulk_create([Entry(tournament=tournament, user=u) for u in players])
    Tournament.objects.filter(pk=tournament.pk).update(
        signup_deadline=tournament.signup_deadline - dt.timedelta(hours=3),
        check_at=tournament.signup_deadline - dt.timedelta(hours=3),
    )
    with CaptureQueriesContext(connection) as queries:
        assert stages.do_check(tournament.pk) == "started"
    return tournament, [q["sql"] for q in queries.captured_queries]


def inserts(model, rows, requested=None) -> int:
    """The INSERT statements ``bulk_create`` makes of ``rows`` (the backend's limit on a
    statement's parameters, and the batch asked for)."""
    rows = int(rows)
    fields = [f for f in model._meta.concrete_fields if not f.primary_key]
    per = connection.ops.bulk_batch_size(fields, [None] * rows)
    per = min(per, requested or per)
    if model is Event:
        per = CHUNK  # written by insert_rows, CHUNK rows a statement
    return math.ceil(rows / per)


def test_the_start_of_256_players_is_one_transaction_of_few_statements(make_players, staff):
    small, small_sql = start_counting(make_players, staff, 64, "s")
    big, big_sql = start_counting(make_players, staff, 256, "b")
    # everything is there: 32 groups of 8, each 28 matches of 2 games
    assert Entry.objects.filter(tournament=big, group__isnull=False).count() == 256
    assert set(Entry.objects.filter(tournament=big).values_list("group", flat=True)) == set(
        range(32)
    )
    matches = Match.objects.filter(tournament=big)
    assert matches.count() == 32 * 28
    games = Game.objects.filter(tournament_game__match__tournament=big)
    assert games.count() == 32 * 28 * 2 == MatchGame.objects.filter(match__tournament=big).count()
    assert Seat.objects.filter(game__in=games).count() == 2 * games.count()
    assert Event.objects.filter(game__in=games).count() >= games.count()
    assert set(games.values_list("status", flat=True)) == {"active"}
    # one transaction: no commit between the first statement and the last
    assert not any(sql.upper().startswith(("COMMIT", "BEGIN")) for sql in big_sql[1:-1])
    # 4x the games: only the INSERTs and UPDATEs chunked by size grow, by their chunks
    grew = len(big_sql) - len(small_sql)
    n_games, n_small = 32 * 28 * 2, 8 * 28 * 2
    events = Event.objects.filter(game__in=games).count() // n_games
    allowed = 2  # the entries' UPDATE in batches of 500
    for model, per_game, requested in (
        (Game, 1, None),
        (Seat, 2, CHUNK),
        (Event, events, CHUNK),
        (Match, 0.5, None),
        (MatchGame, 1, 500),
    ):
        allowed += inserts(model, per_game * n_games, requested)
        allowed -= inserts(model, per_game * n_small, requested)
    assert grew <= allowed, (len(small_sql), len(big_sql), allowed)
    # and no statement per game: far fewer statements than games
    assert len(big_sql) < n_games / 10
    selects = [s for s in big_sql if s.upper().startswith("SELECT")]
    assert len(selects) == len([s for s in small_sql if s.upper().startswith("SELECT")])
