"""What reading the worker's backlog costs (games/backlog.py: /metrics and /healthz read it
at every scrape and probe) on a near-empty database and on one with a site's history,
paired in one run, against the floor of the same run: a ping and one committed INSERT on
a kept connection. Prints the EXPLAIN of each query on the large database.

    make bench-backlog            # BENCH_PG points at another server

The large database: 20,000 players, 200,000 finished and 2,000 active games (a fortieth
of them a computer opponent's turn), 1,000,000 notifications done and 600 pending (100 of
them waiting for a retry). Rows are copied from one template row of each table with
INSERT … SELECT, so the tables have the real schema (migrations) and real indexes.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SIZES = {
    "small": {"users": 20, "finished": 20, "active": 10, "done": 100, "pending": 6},
    "large": {
        "users": 20_000,
        "finished": 200_000,
        "active": 2_000,
        "done": 1_000_000,
        "pending": 600,
    },
}
REPEATS = 200


def copies(model, template_pk: int, count: int, overrides: dict[str, str]) -> None:
    """``count`` copies of one row, with SQL expressions (over ``g``, 1…count) for some
    columns."""
    from django.db import connection

    columns = [f.column for f in model._meta.concrete_fields if not f.primary_key]
    chosen = [overrides.get(column, f'"{column}"') for column in columns]
    table = model._meta.db_table
    with connection.cursor() as cursor:
        quoted = ", ".join(f'"{column}"' for column in columns)
        cursor.execute(
            f'INSERT INTO "{table}" ({quoted}) SELECT {", ".join(chosen)} '
            f'FROM "{table}", generate_series(1, %s) AS g WHERE id = %s',
            [count, template_pk],
        )


def fill(size: dict) -> None:
    from django.contrib.auth import get_user_model
    from django.db import connection

    from games.models import Game, Notification

    users = get_user_model()
    person = users.objects.create_user("template", email="template@example.org")
    copies(
        users,
        person.pk,
        size["users"],
        {
            "username": "'player' || g",
            "email": "'player' || g || '@example.org'",
        },
    )
    bots = list(users.objects.filter(bot_level__gt="").values_list("pk", flat=True))
    game = Game.objects.create(state={}, to_move=person, status=Game.Status.FINISHED)
    copies(Game, game.pk, size["finished"] - 1, {})
    copies(
        Game,
        game.pk,
        size["active"],
        {
            "status": "'active'",
            "turn_started_at": "now() - g * interval '1 minute'",
            # a fortieth of the active games wait for a computer opponent
            "to_move_id": f"CASE WHEN g %% 40 = 0 THEN {bots[0]} ELSE {person.pk} END",
        },
    )
    done = Notification.objects.create(
        user=person,
        kind="turn",
        key="template",
        sent_at="2026-01-01T00:00:00Z",
        outcome="sent",
    )
    copies(
        Notification,
        done.pk,
        size["done"] - 1,
        {
            "key": "'k' || g",
            "created_at": "now() - g * interval '1 second'",
            "sent_at": "now() - g * interval '1 second'",
        },
    )
    copies(
        Notification,
        done.pk,
        size["pending"],
        {
            "key": "'p' || g",
            "created_at": "now() - g * interval '1 second'",
            "sent_at": "NULL",
            "outcome": "''",
            "next_attempt_at": "CASE WHEN g %% 6 = 0 THEN now() + interval '1 hour' END",
        },
    )
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")


def timed(function) -> float:
    """The median of REPEATS calls, in milliseconds."""
    samples = []
    for _ in range(REPEATS):
        started = time.perf_counter()
        function()
        samples.append((time.perf_counter() - started) * 1000)
    return round(statistics.median(samples), 3)


def measure(name: str, explain: bool) -> dict:
    """In a process whose DATABASE_URL is the bench database: build it, time each read."""
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection, transaction
    from django.test.utils import CaptureQueriesContext
    from django.utils.timezone import now

    from games import backlog
    from games.models import WorkerHeartbeat

    call_command("migrate", verbosity=0)
    started = time.perf_counter()
    fill(SIZES[name])
    filled = time.perf_counter() - started

    def ping():
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")

    def insert():
        with transaction.atomic():
            WorkerHeartbeat.objects.create(name=f"bench-{time.perf_counter_ns()}", beat_at=now())

    ensure = connection.ensure_connection
    ensure()
    result = {
        "database": name,
        "filled_s": round(filled, 1),
        "ping_ms": timed(ping),
        "insert_ms": timed(insert),
        "outbox_ms": timed(backlog.outbox),
        "bot_turns_ms": timed(backlog.bot_turns),
        "outbox": backlog.outbox().__dict__,
        "bot_turns": backlog.bot_turns().__dict__,
    }
    if explain:
        plans = {}
        for read in (backlog.outbox, backlog.bot_turns):
            with CaptureQueriesContext(connection) as queries:
                read()
            for number, query in enumerate(queries.captured_queries):
                with connection.cursor() as cursor:
                    cursor.execute("EXPLAIN (ANALYZE, BUFFERS) " + query["sql"])
                    plan = "\n".join(row[0] for row in cursor.fetchall())
                plans[f"{read.__name__} {number + 1}"] = plan
        result["plans"] = plans
    return result


def admin(server: str, *statements: str) -> None:
    import psycopg

    with psycopg.connect(f"{server}/postgres", autocommit=True) as connection:
        for statement in statements:
            connection.execute(statement)


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--measure":
        print(json.dumps(measure(sys.argv[2], explain=sys.argv[2] == "large")))
        return
    server = os.environ.get("BENCH_PG", "postgres://postgres@127.0.0.1:5432")
    results = []
    for name in SIZES:
        database = f"bench_backlog_{name}"
        admin(server, f'DROP DATABASE IF EXISTS "{database}"', f'CREATE DATABASE "{database}"')
        try:
            env = {
                **os.environ,
                "DATABASE_URL": f"{server}/{database}",
                "DJANGO_DEBUG": "1",
                "DJANGO_SETTINGS_MODULE": "shanghaien.settings",
            }
            env.pop("REDIS_URL", None)
            done = subprocess.run(
                [sys.executable, __file__, "--measure", name],
                cwd=ROOT,
                env=env,
                capture_output=True,
                text=True,
                check=False,
            )
            if done.returncode:
                sys.exit(f"{name}: {done.stderr[-3000:]}")
            results.append(json.loads(done.stdout.strip().splitlines()[-1]))
        finally:
            admin(server, f'DROP DATABASE IF EXISTS "{database}"')
    small, large = results
    print(f"{f'ms (median of {REPEATS})':<22}{'small':>10}{'large':>10}{'ratio':>8}")
    for key in ("ping_ms", "insert_ms", "outbox_ms", "bot_turns_ms"):
        ratio = large[key] / small[key] if small[key] else float("nan")
        print(f"{key:<22}{small[key]:>10.3f}{large[key]:>10.3f}{ratio:>8.2f}")
    print(
        f"large: filled in {large['filled_s']} s; outbox {large['outbox']}; "
        f"bot turns {large['bot_turns']}"
    )
    for title, plan in large["plans"].items():
        print(f"\n-- EXPLAIN (ANALYZE, BUFFERS), large: {title}\n{plan}")


if __name__ == "__main__":
    main()
