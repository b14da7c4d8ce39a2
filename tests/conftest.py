"""Shared fixtures. Test databases come from DATABASE_URL (SQLite unless it is set), under a
name of the run's own (the process id), so that runs sharing a server stay apart."""

import os
import tempfile
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client

from .helpers.communicators import communicator, session_cookie
from .helpers.databases import uses_postgres
from .helpers.days import START

# Servers and scripts that tests start share this process's key (sessions made here must
# hold there); outside a test run, settings refuse to start without one.
os.environ.setdefault("DJANGO_SECRET_KEY", settings.SECRET_KEY)


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
        # A name of this run's own: two runs against one server (CI beside a developer,
        # or two checkouts) never drop or fill each other's test database.
        db.setdefault("TEST", {})["NAME"] = f"test_{db['NAME']}_{os.getpid()}"
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


def is_transactional(request) -> bool:
    """Whether the test runs on a transactional database (no transaction around it)."""
    marker = request.node.get_closest_marker("django_db")
    return "transactional_db" in request.fixturenames or bool(
        marker and marker.kwargs.get("transaction")
    )


@pytest.fixture(autouse=True)
def event_log_equals_snapshot(request):
    """After every database test: each game's snapshot equals the fold of its event log."""
    marker = request.node.get_closest_marker("django_db")
    names = request.fixturenames
    if is_transactional(request):
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


@pytest.fixture
def moderator(django_user_model):
    """mia, staff and in the moderators' group (read back, as a request would load her)."""
    from django.contrib.auth.models import Group

    from moderation.roles import MODERATORS

    user = django_user_model.objects.create_user("mia", password="x", is_staff=True)
    user.groups.add(Group.objects.get(name=MODERATORS))
    return django_user_model.objects.get(pk=user.pk)


@pytest.fixture
def mod_client(moderator):
    """mia, logged in with her password and authenticator app (staff need both)."""
    from .helpers.accounts import log_in_with_second_factor

    client = Client()
    log_in_with_second_factor(client, moderator)
    return client


@pytest.fixture
def admin_client(admin_user):
    """pytest-django's superuser, logged in with a second factor as staff must be."""
    from .helpers.accounts import log_in_with_second_factor

    client = Client()
    log_in_with_second_factor(client, admin_user)
    return client


# -- sockets in the test process -------------------------------------------------------


@pytest.fixture(autouse=True)
def close_connections_as_in_production(request, monkeypatch):
    """Channels' test communicator turns closing database connections around consumer
    calls into a no-op while it sends or receives (for tests inside one transaction).
    In a transactional test, consumers run their database work on the thread pool, so
    without closing, every pool thread's connection would outlive its test and
    PostgreSQL would refuse to drop the test database. Close them as a server does."""
    if is_transactional(request):
        import channels.testing.application
        from django.db import close_old_connections

        monkeypatch.setattr(channels.testing.application, "no_op", close_old_connections)


@pytest.fixture
def cookies(players):
    """Session cookies by name, made beforehand: logging in is sync work."""
    return {name: session_cookie(user) for name, user in players.items()}


@pytest.fixture
async def sockets(cookies):
    """Opens sockets as the players; every socket is closed when the test ends."""
    opened = []

    async def open_socket(path, user=None, origin=None):
        socket = communicator(path, cookies[user.username] if user else None, origin)
        connected, code = await socket.connect()
        opened.append(socket)
        return socket, connected, code

    yield open_socket
    for socket in opened:
        await socket.disconnect()


# -- the clock: days pass (time-machine) -------------------------------------------------


@pytest.fixture
def traveller():
    import time_machine

    with time_machine.travel(START, tick=False) as traveller:
        yield traveller


@pytest.fixture
def clocked(traveller, players):
    """A 5-days-per-move game between anna and bernd (with emails), started at START."""
    from django.core import mail

    from games.models import Notification
    from games.services import invitations

    from .helpers.accounts import confirmed_address
    from .helpers.choices import choose

    for user in players.values():
        confirmed_address(user)
        choose(user, email_on_turn=True)
    invitation = invitations.do_invite(players["anna"], to="bernd", days_per_move=5)
    game = invitations.do_accept_invitation(invitation.pk, players["bernd"])
    game.refresh_from_db()
    mail.outbox.clear()
    Notification.objects.all().delete()
    return game
