"""The worker's tournament job reads only the due tournaments, on their index, and a game
that is no tournament's costs its end one indexed read (PostgreSQL's plans)."""

import datetime as dt

import pytest
from django.db import connection
from django.utils import timezone

from games.models import Game
from tests.games.test_job_plans import plans, run
from tournaments.models import Entry, Match, MatchGame, Tournament
from tournaments.services import stages

pytestmark = pytest.mark.django_db


def fill(creator, n=5000):
    now = timezone.now()
    Tournament.objects.bulk_create(
        Tournament(
            name=f"t{i}",
            created_by=creator,
            format="knockout",
            status=("finished", "cancelled", "running", "signup")[i % 4],
            signup_deadline=now - dt.timedelta(days=1),
            check_at=None if i % 4 < 2 else now + dt.timedelta(days=1 + i % 7),
        )
        for i in range(n)
    )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")


def test_the_tournament_job_reads_the_due_ones_on_their_index(postgres_only, staff):
    fill(staff)
    found = plans(run(stages.check_due, timezone.now()))
    assert len(found) == 1  # nothing due: one statement
    sql, plan = found[0]
    assert "tournament_check_idx" in plan and "Seq Scan" not in plan, plan


def test_a_game_that_is_no_tournaments_costs_one_indexed_read(postgres_only, game, staff):
    tournament = Tournament.objects.create(
        name="big", created_by=staff, format="knockout", signup_deadline=timezone.now()
    )
    entry = Entry.objects.create(tournament=tournament, user=staff)
    matches = Match.objects.bulk_create(
        Match(tournament=tournament, stage=1, slot=i, entry_a=entry) for i in range(2000)
    )
    games = Game.objects.bulk_create(Game(state={}, status="finished") for _ in range(4000))
    MatchGame.objects.bulk_create(
        MatchGame(match=matches[i // 2], game=g, number=1 + i % 2, starter=entry)
        for i, g in enumerate(games)
    )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    found = plans(run(stages.game_ended, game, []))
    assert len(found) == 1
    assert "Seq Scan" not in found[0][1] and "Index" in found[0][1], found[0][1]
    MatchGame.objects.all().delete()  # games with no log: out of the log's check
    Game.objects.filter(pk__in=[g.pk for g in games]).delete()
