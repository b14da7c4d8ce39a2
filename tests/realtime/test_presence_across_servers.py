"""Presence across two Daphne processes sharing PostgreSQL and Redis: a socket held by one
makes its player online as the other says it, and a process killed without closing its
sockets lets its players go offline within the lease (a short one here; the production
default is at most a minute).

Runs where DATABASE_URL is PostgreSQL and REDIS_URL is set (CI's second suite).
"""

import asyncio
import os
import time
import urllib.request

import pytest
import websockets

from ..daphne import start_server
from ..helpers.communicators import session_cookie
from ..helpers.databases import database_url, uses_postgres

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        not (uses_postgres() and os.environ.get("REDIS_URL")),
        reason="needs PostgreSQL (DATABASE_URL) and Redis (REDIS_URL): CI's second suite",
    ),
]

LEASE = 4  # seconds: the servers' SOCKET_LEASE_SECONDS here


def profile(url: str, cookie: str, name: str) -> str:
    request = urllib.request.Request(
        f"{url}/users/{name}/", headers={"Cookie": cookie, "Accept-Language": "en"}
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.read().decode()


@pytest.fixture
def cookies(players):
    return {name: session_cookie(players[name]) for name in ("anna", "bernd")}


async def test_presence_is_shared_by_the_processes_and_lapses_when_one_is_killed(cookies):
    env = {"DATABASE_URL": database_url(), "SOCKET_LEASE_SECONDS": str(LEASE)}
    servers = start_server(count=2, env=env)
    first, second = servers.urls
    loop = asyncio.get_running_loop()

    async def seen_by_bernd() -> str:
        return await loop.run_in_executor(None, profile, second, cookies["bernd"], "anna")

    try:
        assert "Online now" not in await seen_by_bernd()
        socket = await websockets.connect(
            first.replace("http", "ws") + "/ws/lobby/",
            origin=first,
            additional_headers={"Cookie": cookies["anna"]},
            open_timeout=10,
        )
        assert "hello" in await asyncio.wait_for(socket.recv(), timeout=10)
        page = await seen_by_bernd()
        assert "Online now" in page
        # more than a lease later, the first process has renewed anna's place
        await asyncio.sleep(LEASE * 1.5)
        assert "Online now" in await seen_by_bernd()
        servers.processes[0].kill()  # SIGKILL: nothing closes its sockets
        servers.processes[0].wait()
        killed = time.monotonic()
        while "Online now" in await seen_by_bernd():
            assert time.monotonic() - killed < 60, "still online a minute after the kill"
            await asyncio.sleep(0.25)
        gone_after = time.monotonic() - killed
        assert gone_after <= LEASE + 1
        assert "Last seen just now" in await seen_by_bernd()
    finally:
        servers.stop()
