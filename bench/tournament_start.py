"""What a tournament's start costs: the draw and every game of its first stage, written in
the one transaction that starts it (tournaments.services.stages), for 256 players, against
the floor of the same run: a ping and one committed INSERT on a kept connection.

    make bench-tournament-start        # BENCH_PG points at another server

Three shapes of 256 players: a knock-out (128 matches, 256 games), groups of 4 then a
knock-out (64 groups, 768 games) and groups of 8 then a knock-out (32 groups, 1,792 games).
Each start runs ``REPEATS`` times, each on a tournament of its own with the same 256
players (fresh rows, same database), and the median and the slowest are reported with the
statements it ran. Every player has a confirmed address and wants the tournament's emails,
so the start also writes their notifications. Results go to
``bench/results/tournament_start.json``.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PLAYERS = 256
REPEATS = 5
SHAPES = {
    "knockout": {"format": "knockout"},
    "groups of 4": {"format": "groups_knockout", "group_size": 4, "advance": 2},
    "groups of 8": {"format": "groups_knockout", "group_size": 8, "advance": 2},
}


def players():
    """256 players with a confirmed address and a rating each (the seeding reads it)."""
    from allauth.account.models import EmailAddress
    from django.contrib.auth import get_user_model

    from ratings.models import PlayerRating

    users = get_user_model()
    made = users.objects.bulk_create(
        [users(username=f"p{i}", email=f"p{i}@example.org") for i in range(PLAYERS)]
    )
    EmailAddress.objects.bulk_create(
        [EmailAddress(user=u, email=u.email, verified=True, primary=True) for u in made]
    )
    PlayerRating.objects.bulk_create(
        [PlayerRating(user=u, rating=1200 + 3 * i, games=5) for i, u in enumerate(made)]
    )
    staff = users.objects.create_user("staff", is_staff=True)
    return staff, made


def start_once(staff, entrants, terms: dict, number: int) -> dict:
    """One tournament of ``entrants``, signed up, then started by the worker's check: the
    start's time and statements."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext
    from django.utils import timezone

    from tournaments.models import Entry, Tournament
    from tournaments.services import entries, stages

    tournament = entries.do_create(
        staff,
        name=f"Bench {number}",
        signup_deadline=timezone.now() + timedelta(hours=2),
        min_players=4,
        max_players=PLAYERS,
        **terms,
    )
    Entry.objects.bulk_create([Entry(tournament=tournament, user=u) for u in entrants])
    past = timezone.now() - timedelta(minutes=1)
    Tournament.objects.filter(pk=tournament.pk).update(signup_deadline=past, check_at=past)
    with CaptureQueriesContext(connection) as queries:
        started = time.perf_counter()
        done = stages.do_check(tournament.pk)
        seconds = time.perf_counter() - started
    assert done == "started", done
    return {"ms": seconds * 1000, "statements": len(queries.captured_queries)}


def floor(repeats: int = 200) -> dict:
    from django.db import connection, transaction
    from django.utils.timezone import now

    from games.models import WorkerHeartbeat

    def median(function) -> float:
        samples = []
        for _ in range(repeats):
            started = time.perf_counter()
            function()
            samples.append((time.perf_counter() - started) * 1000)
        return round(statistics.median(samples), 3)

    def ping():
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")

    def insert():
        with transaction.atomic():
            WorkerHeartbeat.objects.create(name=f"bench-{time.perf_counter_ns()}", beat_at=now())

    connection.ensure_connection()
    return {"ping_ms": median(ping), "insert_ms": median(insert)}


def measure() -> dict:
    """In a process whose DATABASE_URL is the bench database."""
    import django

    django.setup()
    from django.core.management import call_command
    from django.test.utils import override_settings

    call_command("migrate", verbosity=0)
    staff, entrants = players()
    result = {"floor": floor(), "shapes": {}}
    number = 0
    # the statements are kept (CaptureQueriesContext) as in DEBUG; the work is the same
    with override_settings(DEBUG=False):
        for shape, terms in SHAPES.items():
            runs = []
            for _ in range(REPEATS):
                number += 1
                runs.append(start_once(staff, entrants, terms, number))
            times = [r["ms"] for r in runs]
            result["shapes"][shape] = {
                "median_ms": round(statistics.median(times), 1),
                "max_ms": round(max(times), 1),
                "statements": runs[-1]["statements"],
            }
    return result


def admin(server: str, *statements: str) -> None:
    import psycopg

    with psycopg.connect(f"{server}/postgres", autocommit=True) as connection:
        for statement in statements:
            connection.execute(statement)


def main() -> None:
    if os.environ.get("BENCH_CHILD"):
        print(json.dumps(measure()))
        return
    server = os.environ.get("BENCH_PG", "postgres://postgres@127.0.0.1:5432")
    database = "bench_tournament_start"
    admin(server, f'DROP DATABASE IF EXISTS "{database}"', f'CREATE DATABASE "{database}"')
    env = {
        **os.environ,
        "BENCH_CHILD": "1",
        "DATABASE_URL": f"{server}/{database}",
        "DJANGO_SETTINGS_MODULE": "shanghaien.settings",
        "DJANGO_DEBUG": "1",
    }
    env.pop("REDIS_URL", None)  # the broadcasts after the commit are not measured
    try:
        done = subprocess.run(
            [sys.executable, __file__], env=env, cwd=ROOT, capture_output=True, text=True
        )
        if done.returncode:
            sys.stderr.write(done.stderr)
            sys.exit(done.returncode)
        result = json.loads(done.stdout.strip().splitlines()[-1])
    finally:
        admin(server, f'DROP DATABASE IF EXISTS "{database}"')
    floor_ms = result["floor"]
    print(f"floor: ping {floor_ms['ping_ms']} ms, committed INSERT {floor_ms['insert_ms']} ms")
    print(f"{'256 players':<14} {'median ms':>10} {'max ms':>8} {'statements':>11}")
    for shape, row in result["shapes"].items():
        print(f"{shape:<14} {row['median_ms']:>10} {row['max_ms']:>8} {row['statements']:>11}")
    out = ROOT / "bench" / "results" / "tournament_start.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    main()
