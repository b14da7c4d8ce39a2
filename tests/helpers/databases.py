"""The test database, as seen from a test or from a process a test starts."""

import os


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
