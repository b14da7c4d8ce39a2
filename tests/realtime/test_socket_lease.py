"""An open game socket holds a lease on its seat; a dead server's sockets let it lapse,
so "your turn" emails come again instead of being held back forever."""

import asyncio
from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from django.utils import timezone

from games import consumers
from games.models import Seat
from games.services import presence

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_socket_never_closed_stops_counting_once_its_lease_lapses(game, players):
    anna = players["anna"]
    start = timezone.now()
    presence.socket_opened(game.pk, anna, now=start)  # and then its server dies
    assert presence.has_game_open(game, anna, now=start + timedelta(minutes=2))
    assert not presence.has_game_open(game, anna, now=start + presence.SOCKET_LEASE * 2)
    presence.sockets_alive([(game.pk, anna.pk)], now=start + timedelta(minutes=5))
    assert presence.has_game_open(game, anna, now=start + timedelta(minutes=6))


def test_a_process_renews_the_leases_it_names_and_no_others(game, players):
    anna, bernd = players["anna"], players["bernd"]
    start = timezone.now()
    presence.socket_opened(game.pk, anna, now=start)
    presence.socket_opened(game.pk, bernd, now=start)
    later = start + timedelta(minutes=5)
    presence.sockets_alive([(game.pk, anna.pk), (game.pk + 1000, bernd.pk)], now=later)
    assert presence.has_game_open(game, anna, now=later)
    assert not presence.has_game_open(game, bernd, now=later)  # another process's socket


def test_opening_after_a_lapsed_lease_starts_the_count_again(game, players):
    anna = players["anna"]
    start = timezone.now()
    presence.socket_opened(game.pk, anna, now=start)
    presence.socket_opened(game.pk, anna, now=start)  # two tabs on a server that dies
    later = start + presence.SOCKET_LEASE + timedelta(seconds=1)
    presence.socket_opened(game.pk, anna, now=later)
    seat = Seat.objects.get(game=game, user=anna)
    assert seat.open_sockets == 1 and seat.socket_seen_at == later
    presence.socket_closed(game.pk, anna)
    assert not presence.has_game_open(game, anna, now=later)


def test_a_socket_closed_on_time_counts_down_at_once(game, players):
    anna = players["anna"]
    presence.socket_opened(game.pk, anna)
    presence.socket_opened(game.pk, anna)
    presence.socket_closed(game.pk, anna)
    assert presence.has_game_open(game, anna)
    presence.socket_closed(game.pk, anna)
    assert not presence.has_game_open(game, anna)
    presence.sockets_alive([(game.pk, anna.pk)])  # a late beat of a closed socket opens nothing
    assert not presence.has_game_open(game, anna)


@database_sync_to_async
def lease_of(game, user):
    seat = Seat.objects.get(game=game, user=user)
    return seat.open_sockets, seat.socket_seen_at


@database_sync_to_async
def backdate(game, user):
    long_ago = timezone.now() - timedelta(hours=1)
    Seat.objects.filter(game=game, user=user).update(socket_seen_at=long_ago)
    return long_ago


@pytest.mark.asyncio
async def test_an_open_socket_renews_its_lease_until_it_closes(sockets, game, players, monkeypatch):
    monkeypatch.setattr(consumers, "HEARTBEAT_SECONDS", 0.05)
    anna = players["anna"]
    socket, ok, _ = await sockets(f"/ws/games/{game.pk}/", anna)
    assert ok and (await socket.receive_json_from(timeout=5))["type"] == "state"
    long_ago = await backdate(game, anna)
    for _ in range(100):
        await asyncio.sleep(0.05)
        count, seen = await lease_of(game, anna)
        if seen > long_ago:
            break
    assert count == 1 and seen > timezone.now() - timedelta(seconds=5)
    await socket.disconnect()
    long_ago = await backdate(game, anna)
    await asyncio.sleep(0.3)
    assert await lease_of(game, anna) == (0, long_ago)  # the beat stopped with the socket
