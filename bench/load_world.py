"""The bench's environment, its PostgreSQL and Redis databases, and the games it plays."""

from __future__ import annotations

import os
import pathlib
import secrets
import time

# Set before anything imports Django: its settings read them.
DB_NAME = os.environ.get("BENCH_DB", "shanghaien_bench")
PG_SERVER = os.environ.get("BENCH_PG", "postgres://postgres@127.0.0.1:5432")
REDIS_URL = os.environ.get("BENCH_REDIS", "redis://127.0.0.1:6379/2")
os.environ["DATABASE_URL"] = f"{PG_SERVER}/{DB_NAME}"
os.environ["REDIS_URL"] = REDIS_URL
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "shanghaien.settings")
os.environ.setdefault("DJANGO_LOG_LEVEL", "WARNING")
os.environ.setdefault("DJANGO_SECRET_KEY", secrets.token_urlsafe(50))

ROOT = pathlib.Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"


# --- the database and the games -------------------------------------------------------


def fresh_database() -> None:
    import psycopg
    import redis

    with psycopg.connect(f"{PG_SERVER}/postgres", autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {DB_NAME} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {DB_NAME}")
    # The bench's own Redis database: no channel groups or rate-limit counts left over.
    redis.Redis.from_url(REDIS_URL).flushdb()


def setup_django() -> None:
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)


def make_games(count: int, tag: str) -> list[tuple[int, str, str]]:
    """``count`` games through the service layer; (game id, cookie of seat 0, of seat 1)."""
    from django.contrib.auth import get_user_model
    from django.test import Client

    from games.services import invitations

    users = get_user_model().objects
    games = []
    for i in range(count):
        a = users.create_user(f"{tag}a{i}", password=None)
        b = users.create_user(f"{tag}b{i}", password=None)
        game = invitations.do_accept_invitation(invitations.do_invite(a, to=b.username).pk, b)
        cookies = []
        for user in (a, b):
            client = Client()
            client.force_login(user)
            cookies.append(f"sessionid={client.cookies['sessionid'].value}")
        games.append((game.pk, cookies[0], cookies[1]))
    return games


class Postgres:
    """One connection of this process, opened once: the statistics views and the floor."""

    def __init__(self):
        import psycopg

        self.conn = psycopg.connect(f"{PG_SERVER}/{DB_NAME}", autocommit=True)
        self.version = self.conn.info.server_version
        self.conn.execute(
            "CREATE TABLE IF NOT EXISTS bench_ping (id serial PRIMARY KEY, at timestamptz)"
        )

    def sessions(self) -> int | None:
        """Sessions ever opened on the bench database (PostgreSQL 14 and later)."""
        if self.version < 140000:
            return None
        row = self.conn.execute(
            "SELECT sessions FROM pg_stat_database WHERE datname = %s", (DB_NAME,)
        ).fetchone()
        return int(row[0])

    def commit_floor(self, count: int) -> list[float]:
        """One INSERT and its COMMIT at a time, on the open connection (autocommit off)."""
        samples = []
        self.conn.autocommit = False
        try:
            for i in range(count + 20):  # the first 20 warm up and are not kept
                t0 = time.perf_counter()
                self.conn.execute("INSERT INTO bench_ping (at) VALUES (now())")
                self.conn.commit()
                if i >= 20:
                    samples.append((time.perf_counter() - t0) * 1000)
        finally:
            self.conn.autocommit = True
        return samples

    def close(self) -> None:
        self.conn.close()
