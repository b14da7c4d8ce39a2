"""Shared fixtures. Test databases come from DATABASE_URL (SQLite unless it is set)."""

import os
import tempfile
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client

# Servers and scripts that tests start share this process's key (sessions made here must
# hold there); outside a test run, settings refuse to start without one.
os.environ.setdefault("DJANGO_SECRET_KEY", settings.SECRET_KEY)


def uses_postgres() -> bool:
    return os.environ.get("DATABASE_URL", "").startswith(("postgres://", "postgresql://"))


@pytest.fixture(scope="session")
def django_db_modify_db_settings():
    # A file, not SQLite's in-memory default, so that a Daphne process started by the
    # browser tests can open the same test database.
    from django.conf import settings

    db = settings.DATABASES["default"]
    if db["ENGINE"].endswith("sqlite3"):
        name = Path(tempfile.gettempdir()) / f"shanghaien-test-{os.getpid()}.sqlite3"
        db.setdefault("TEST", {})["NAME"] = str(name)
        yield
        # Django removes the database file; WAL mode leaves its two side files.
        for side in ("-wal", "-shm"):
            Path(f"{name}{side}").unlink(missing_ok=True)
    else:
        yield


@pytest.fixture(scope="session", autouse=True)
def fast_password_hashing():
    # Real hashing costs ~0.3 s a user; the tests check behaviour, not key stretching.
    from django.test import override_settings

    with override_settings(PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"]):
        yield


@pytest.fixture
def postgres_only():
    if not uses_postgres():
        pytest.skip("needs PostgreSQL: set DATABASE_URL=postgres://… (CI's second run does)")


def pytest_collection_modifyitems(config, items):
    # Playwright's sync API keeps an event loop running for the whole browser session,
    # which async tests cannot share: browser tests run last.
    items.sort(key=lambda item: item.get_closest_marker("e2e") is not None)


@pytest.fixture(autouse=True)
def fresh_rate_limits():
    """Rate limits count in the cache (Redis with REDIS_URL): each test starts at zero."""
    from django.core.cache import cache

    cache.clear()


@pytest.fixture(autouse=True)
def event_log_equals_snapshot(request):
    """After every database test: each game's snapshot equals the fold of its event log."""
    marker = request.node.get_closest_marker("django_db")
    names = request.fixturenames
    if "transactional_db" in names or (marker and marker.kwargs.get("transaction")):
        request.getfixturevalue("transactional_db")
    elif marker or "db" in names:
        request.getfixturevalue("db")
    else:
        yield
        return
    yield
    from games.models import Game
    from games.services.game_log import replay_events

    for game in Game.objects.all():
        assert replay_events(game) == game.rules_state(), f"game {game.pk}: snapshot != log"


# -- players and a game: anna (seat 0) invited bernd (seat 1); carl watches --------------


@pytest.fixture
def players(django_user_model):
    return {
        name: django_user_model.objects.create_user(name, password="tavern-dice-42")
        for name in ("anna", "bernd", "carl")
    }


@pytest.fixture
def clients(players):
    logged_in = {}
    for name, user in players.items():
        client = Client()
        client.force_login(user)
        logged_in[name] = client
    return logged_in


@pytest.fixture
def game(players):
    """A fresh game between anna (seat 0) and bernd (seat 1)."""
    from games.services import invitations

    invitation = invitations.do_invite(players["anna"], to="bernd")
    return invitations.do_accept_invitation(invitation.pk, players["bernd"])


def database_url() -> str:
    """DATABASE_URL of the test database, for a server process started by a test."""
    from django.db import connection

    db = connection.settings_dict
    if db["ENGINE"].endswith("sqlite3"):
        return f"sqlite:///{db['NAME']}"
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    return f"postgres://{db['USER']}{password}@{db['HOST']}:{db.get('PORT') or 5432}/{db['NAME']}"
