"""A token revoked through one server process closes, at once, the sockets it opened on
another (PostgreSQL and Redis shared, as in production).

Runs where DATABASE_URL is PostgreSQL and REDIS_URL is set (CI's second suite).
"""

import asyncio
import json
import os
import urllib.request

import pytest
import websockets

from accounts.models import ApiToken

from ..daphne import start_server
from ..helpers.databases import database_url, uses_postgres
from .protocol import check

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        not (uses_postgres() and os.environ.get("REDIS_URL")),
        reason="needs PostgreSQL (DATABASE_URL) and Redis (REDIS_URL): CI's second suite",
    ),
]


@pytest.fixture
def servers(players):
    with start_server(count=2, env={"DATABASE_URL": database_url()}) as urls:
        yield urls


def call(url, token, path, body=None):
    request = urllib.request.Request(
        url + path,
        data=None if body is None else json.dumps(body).encode(),
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
        method="GET" if body is None else "POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


@pytest.fixture
def issued(players):
    return ApiToken.issue(players["anna"], "bot", ("read", "play"))


async def test_revoking_on_one_server_closes_the_socket_on_the_other(servers, issued):
    token, raw = issued
    a_url, b_url = servers
    headers = {"Authorization": f"Bearer {raw}"}
    async with websockets.connect(
        a_url.replace("http", "ws") + "/ws/lobby/", additional_headers=headers, open_timeout=10
    ) as lobby:  # no Origin: a program with a token
        hello = check(json.loads(await asyncio.wait_for(lobby.recv(), timeout=10)))
        assert hello["type"] == "hello"
        loop = asyncio.get_running_loop()
        status, body = await loop.run_in_executor(
            None, call, b_url, raw, f"/api/tokens/{token.pk}/revoke/", {}
        )
        assert (status, body) == (200, {"revoked": token.pk})
        frame = check(json.loads(await asyncio.wait_for(lobby.recv(), timeout=10)))
        assert frame["type"] == "error" and frame["code"] == "token_revoked"
        with pytest.raises(websockets.ConnectionClosed) as closed:
            await asyncio.wait_for(lobby.recv(), timeout=10)
        assert closed.value.rcvd.code == 4401
    loop = asyncio.get_running_loop()
    status, body = await loop.run_in_executor(None, call, a_url, raw, "/api/games/")
    assert status == 401 and body["error"]["code"] == "bad_token"
    with pytest.raises(websockets.InvalidStatus):  # the handshake is refused now
        await websockets.connect(
            b_url.replace("http", "ws") + "/ws/lobby/", additional_headers=headers
        )
