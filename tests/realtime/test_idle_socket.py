"""An idle socket stays open: the channel layer's blocking read must not time out."""

import asyncio
import os

import pytest

from .protocol import check

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not os.environ.get("REDIS_URL"), reason="needs Redis (REDIS_URL)"),
]


async def test_a_game_socket_left_idle_for_longer_than_redis_timeouts_still_answers(
    sockets, game, players
):
    socket, ok, _ = await sockets(f"/ws/games/{game.pk}/", players["anna"])
    assert ok
    assert check(await socket.receive_json_from(timeout=5))["type"] == "state"
    await asyncio.sleep(7)  # redis-py's default socket timeout is 5 s
    assert await socket.receive_nothing(timeout=0.1)  # no close, no error
    await socket.send_json_to({"type": "sync"})
    assert check(await socket.receive_json_from(timeout=5))["type"] == "state"
