"""A restart brings every board back at once: a process lets its handshakes through a few
at a time, first come first served, rather than all of them at once."""

import asyncio

import pytest

from shanghaien.lib.sockets import SocketUser


def scope(n: int) -> dict:
    return {"type": "websocket", "path": f"/ws/games/{n}/", "headers": []}


@pytest.mark.asyncio
async def test_handshakes_go_through_in_turn_two_per_database_thread(settings):
    settings.DATABASE_THREADS = 1  # two handshakes at a time
    entered, answer, sent = [], asyncio.Event(), []
    forever = asyncio.Event()

    async def consumer(scope, receive, send):
        entered.append(scope["path"])
        assert not scope["user"].is_authenticated  # no cookie: nobody
        await answer.wait()
        await send({"type": "websocket.accept"})
        await forever.wait()  # an open socket

    async def send(message):
        sent.append(message["type"])

    app = SocketUser(consumer)
    tasks = [asyncio.create_task(app(scope(n), None, send)) for n in range(5)]
    try:
        for _ in range(200):
            await asyncio.sleep(0.01)
            if len(entered) == 2:
                break
        await asyncio.sleep(0.1)
        assert entered == ["/ws/games/0/", "/ws/games/1/"]  # the others wait their turn
        answer.set()  # the first two accepted: the next come in, in order
        for _ in range(200):
            await asyncio.sleep(0.01)
            if len(entered) == 5:
                break
        assert entered == [f"/ws/games/{n}/" for n in range(5)]
        assert sent == ["websocket.accept"] * 5
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


@pytest.mark.asyncio
async def test_a_handshake_that_fails_lets_the_next_one_in(settings):
    settings.DATABASE_THREADS = 1
    entered = []

    async def consumer(scope, receive, send):
        entered.append(scope["path"])
        raise RuntimeError("the consumer crashed before answering")

    app = SocketUser(consumer)
    for n in range(4):  # more than the gate holds: each failure gave its place back
        with pytest.raises(RuntimeError):
            await asyncio.wait_for(app(scope(n), None, None), 5)
    assert len(entered) == 4
