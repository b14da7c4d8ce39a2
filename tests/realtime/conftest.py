import channels.testing.application
import pytest
from channels.testing import WebsocketCommunicator
from django.db import close_old_connections
from django.test import Client

from games.services import invitations
from shanghaien.asgi import application

ORIGIN = b"http://localhost"


@pytest.fixture(autouse=True)
def close_connections_as_in_production(monkeypatch):
    """Channels' test communicator turns closing database connections around consumer
    calls into a no-op while it sends or receives (for tests inside one transaction).
    These tests are transactional and consumers run their database work on the thread
    pool, so without closing, every pool thread's connection would outlive its test and
    PostgreSQL would refuse to drop the test database. Close them as a server does."""
    monkeypatch.setattr(channels.testing.application, "no_op", close_old_connections)


def session_cookie(user) -> str:
    client = Client()
    client.force_login(user)
    return f"sessionid={client.cookies['sessionid'].value}"


def communicator(path: str, cookie: str | None, origin: bytes = ORIGIN) -> WebsocketCommunicator:
    headers = [(b"origin", origin), (b"host", b"localhost")]
    if cookie is not None:
        headers.append((b"cookie", cookie.encode()))
    return WebsocketCommunicator(application, path, headers=headers)


@pytest.fixture
def players(transactional_db, django_user_model):
    return {
        name: django_user_model.objects.create_user(name, password="tavern-dice-42")
        for name in ("anna", "bernd", "carl")
    }


@pytest.fixture
def game(players):
    invitation = invitations.do_invite(players["anna"], to="bernd")
    return invitations.do_accept_invitation(invitation.pk, players["bernd"])


@pytest.fixture
def cookies(players):
    """Session cookies, made beforehand: logging in is sync work."""
    return {user.pk: session_cookie(user) for user in players.values()}


@pytest.fixture
async def sockets(cookies):
    """Opens sockets as the players; every socket is closed when the test ends."""
    opened = []

    async def open_socket(path, user=None, origin=ORIGIN):
        socket = communicator(path, cookies[user.pk] if user else None, origin)
        connected, code = await socket.connect()
        opened.append(socket)
        return socket, connected, code

    yield open_socket
    for socket in opened:
        await socket.disconnect()
