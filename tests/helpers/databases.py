"""The test database, as seen from a test or from a process a test starts."""

import os
import time


def uses_postgres() -> bool:
    return os.environ.get("DATABASE_URL", "").startswith(("postgres://", "postgresql://"))


def database_url() -> str:
    """DATABASE_URL of the test database, for a server process started by a test."""
    from django.db import connection

    db = connection.settings_dict
    if db["ENGINE"].endswith("sqlite3"):
        return f"sqlite:///{db['NAME']}"
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    return f"postgres://{db['USER']}{password}@{db['HOST']}:{db.get('PORT') or 5432}/{db['NAME']}"


def wait_for_server_sessions_to_end(timeout: float = 10) -> None:
    """PostgreSQL ends a stopped server's sessions a moment after it exits: the test
    database can be flushed and dropped only once it has."""
    from django.db import connection

    if connection.vendor != "postgresql":
        return
    deadline = time.monotonic() + timeout
    with connection.cursor() as cursor:
        while time.monotonic() < deadline:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity"
                " WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )
            if cursor.fetchone()[0] == 0:
                return
            time.sleep(0.1)
