"""Who may open sockets, and how many: the Origin compared in full with the site's own
origins, and a cap on the sockets of one account over every server process."""

import asyncio

import pytest
from channels.db import database_sync_to_async
from django.conf import settings

from shanghaien.lib import sockets as socket_lib
from shanghaien.lib.sockets import TOO_MANY_SOCKETS, SocketSlots

from .protocol import check

pytestmark = pytest.mark.django_db(transaction=True)


# -- the Origin -------------------------------------------------------------------------------


@pytest.fixture
def site(settings):
    settings.SITE_URL = "https://play.example.org"
    settings.CSRF_TRUSTED_ORIGINS = ["https://beta.example.org:8443", "https://*.example.net"]
    return settings


REFUSED = [
    b"https://play.example.org:8443",  # another port of the same host
    b"https://play.example.org:1",
    b"http://play.example.org",  # the wrong scheme
    b"http://play.example.org:443",
    b"wss://play.example.org",
    b"https://beta.example.org",  # the trusted origin is on 8443 only
    b"http://x.example.net",
    b"https://example.org",
    b"https://evil.play.example.org",
    b"https://play.example.org.evil.example",
    b"https://user@play.example.org",
    b"https://play.example.org/path",
    b"https://play.example.org:99999",
    b"https://play.example.org:x",
    b"null",
    b"",
]
ACCEPTED = [
    b"https://play.example.org",
    b"https://PLAY.example.org:443",
    b"https://beta.example.org:8443",
    b"https://example.net",
    b"https://a.b.example.net",
]


@pytest.mark.parametrize("origin", REFUSED)
async def test_a_socket_from_another_origin_is_refused(site, sockets, game, players, origin):
    origin = origin or b" "  # an Origin header that says nothing (none at all: below)
    for path in (f"/ws/games/{game.pk}/", "/ws/lobby/"):
        _, ok, _ = await sockets(path, players["anna"], origin=origin)
        assert not ok, (path, origin)


@pytest.mark.parametrize("origin", ACCEPTED)
async def test_the_sites_own_origins_are_accepted(site, sockets, game, players, origin):
    board, ok, _ = await sockets(f"/ws/games/{game.pk}/", players["anna"], origin=origin)
    assert ok
    check(await board.receive_json_from(timeout=5))
    _, ok, _ = await sockets("/ws/lobby/", players["anna"], origin=origin)
    assert ok


async def test_the_default_site_refuses_another_port_and_scheme_of_its_own_host(
    sockets, game, players, settings
):
    assert settings.SITE_URL == "http://127.0.0.1:8000"
    path = f"/ws/games/{game.pk}/"
    for origin in (b"http://127.0.0.1:1", b"https://127.0.0.1:8000", b"http://localhost:8000"):
        _, ok, _ = await sockets(path, players["anna"], origin=origin)
        assert not ok, origin
    _, ok, _ = await sockets(path, players["anna"], origin=b"http://127.0.0.1:8000")
    assert ok


async def test_a_cookie_socket_without_an_origin_is_refused(site, sockets, game, players):
    """A program that logs in with a cookie sends the site's Origin as a page would; one
    that sends none is refused (a program uses a token: tests/realtime/test_token_sockets.py)."""
    for path in (f"/ws/games/{game.pk}/", "/ws/lobby/"):
        _, ok, _ = await sockets(path, players["anna"], origin=b"")
        assert not ok, path
    _, ok, _ = await sockets(f"/ws/games/{game.pk}/", players["anna"])  # the site's own
    assert ok


# -- the sockets of one account --------------------------------------------------------------


async def refused_as_too_many(socket, ok) -> None:
    assert ok  # accepted only to say why
    frame = await socket.receive_json_from(timeout=5)
    check(frame)
    assert frame["code"] == "too_many_sockets"
    assert f"{settings.SOCKETS_PER_ACCOUNT} connections" in frame["message"]
    assert await socket.receive_output(timeout=5) == {
        "type": "websocket.close",
        "code": TOO_MANY_SOCKETS,
    }


async def test_one_account_holds_at_most_so_many_sockets(sockets, game, players):
    assert settings.SOCKETS_PER_ACCOUNT == 20
    anna, bernd = players["anna"], players["bernd"]
    opened = []
    for n in range(settings.SOCKETS_PER_ACCOUNT):
        path = "/ws/lobby/" if n % 2 else f"/ws/games/{game.pk}/"
        socket, ok, _ = await sockets(path, anna)
        assert ok, n
        await socket.receive_json_from(timeout=5)  # the state, or hello
        opened.append(socket)
    for path in ("/ws/lobby/", f"/ws/games/{game.pk}/"):
        socket, ok, _ = await sockets(path, anna)
        await refused_as_too_many(socket, ok)
    # another account is not concerned
    socket, ok, _ = await sockets("/ws/lobby/", bernd)
    assert ok and (await socket.receive_json_from(timeout=5))["type"] == "hello"
    # a closed socket gives its place back
    await opened[0].disconnect()
    socket, ok, _ = await sockets("/ws/lobby/", anna)
    assert ok and (await socket.receive_json_from(timeout=5))["type"] == "hello"
    socket, ok, _ = await sockets("/ws/lobby/", anna)
    await refused_as_too_many(socket, ok)


async def test_the_count_is_shared_by_the_processes_and_a_dead_ones_places_lapse(
    sockets, players, monkeypatch
):
    """Another process's sockets hold places of the same account in the shared cache; a
    process that dies stops renewing them, and they lapse after the lease (a short one
    here: the cache's own clock, Redis' with REDIS_URL, decides)."""
    monkeypatch.setattr(socket_lib, "SLOT_LEASE_SECONDS", 3)
    anna, room = players["anna"], settings.SOCKETS_PER_ACCOUNT
    other = SocketSlots()  # another server process's count
    for _ in range(room - 1):
        assert await database_sync_to_async(other.take)(anna.pk)
    socket, ok, _ = await sockets("/ws/lobby/", anna)
    assert ok and (await socket.receive_json_from(timeout=5))["type"] == "hello"
    socket, ok, _ = await sockets("/ws/lobby/", anna)
    await refused_as_too_many(socket, ok)
    # the other process lives: it renews its places (and this one its own), taken still
    # after more than a lease
    await asyncio.sleep(2)
    await database_sync_to_async(other.renew)()
    await database_sync_to_async(socket_lib.SLOTS.renew)()
    await asyncio.sleep(2)
    socket, ok, _ = await sockets("/ws/lobby/", anna)
    await refused_as_too_many(socket, ok)
    # then it dies: nothing renews them, and after a lease they are free again
    await asyncio.sleep(3.5)
    for _ in range(room - 1):
        socket, ok, _ = await sockets("/ws/lobby/", anna)
        assert ok and (await socket.receive_json_from(timeout=5))["type"] == "hello"


async def test_a_failing_cache_lets_sockets_through(sockets, players, monkeypatch):
    def broken(*args, **kwargs):
        raise ConnectionError("the cache is away")

    monkeypatch.setattr(SocketSlots, "take", broken)
    socket, ok, _ = await sockets("/ws/lobby/", players["anna"])
    assert ok and (await socket.receive_json_from(timeout=5))["type"] == "hello"
