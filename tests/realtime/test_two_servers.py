"""Two Daphne processes sharing PostgreSQL and Redis: one player on each, a whole game.

Runs where DATABASE_URL is PostgreSQL and REDIS_URL is set (CI's second suite).
"""

import asyncio
import json
import os
import random
import urllib.request
import uuid
from pathlib import Path

import pytest
import websockets

from accounts.models import ApiToken

from ..daphne import start_server
from ..helpers.communicators import session_cookie
from ..helpers.databases import database_url, uses_postgres
from .protocol import check

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        not (uses_postgres() and os.environ.get("REDIS_URL")),
        reason="needs PostgreSQL (DATABASE_URL) and Redis (REDIS_URL): CI's second suite",
    ),
]


@pytest.fixture
def servers(players):
    """Two Daphne processes on the test database; their URLs."""
    with start_server(count=2, env={"DATABASE_URL": database_url()}) as urls:
        yield urls


def api(url, token, path, body=None):
    request = urllib.request.Request(
        url + path,
        data=None if body is None else json.dumps(body).encode(),
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
        method="GET" if body is None else "POST",
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.status, json.loads(response.read())


async def play(url, cookie, game_id, seed):
    ws_url = url.replace("http", "ws") + f"/ws/games/{game_id}/"
    rng = random.Random(seed)
    received = 0
    async with websockets.connect(
        ws_url, origin=url, additional_headers={"Cookie": cookie}, open_timeout=10
    ) as ws:
        pending = command = None
        while True:
            message = check(json.loads(await asyncio.wait_for(ws.recv(), timeout=20)))
            received += 1
            if message["type"] == "error" and message["code"] == "rate_limited":
                await asyncio.sleep(0.2)  # wait, then retry the same command
                await ws.send(json.dumps(command))
                continue
            assert message["type"] != "error", message
            if message["type"] != "state":
                continue
            view = message["game"]["view"]
            if view["status"] == "finished":
                return message, received
            if view["turn"] == "me" and pending != message["version"]:
                pending = message["version"]
                command = {
                    "type": "command",
                    "command": rng.choice(
                        [c for c in view["legal"] if c["type"] not in ("resign", "abort")]
                    ),
                    "expected_version": message["version"],
                    "client_id": str(uuid.uuid4()),
                }
                await ws.send(json.dumps(check(command, "client")))


@pytest.fixture
def credentials(players):
    tokens = {name: ApiToken.issue(players[name], "test")[1] for name in ("anna", "bernd")}
    cookies = {name: session_cookie(players[name]) for name in ("anna", "bernd")}
    return tokens, cookies


async def test_a_whole_game_across_two_daphne_processes(servers, credentials):
    tokens, cookies = credentials
    a_url, b_url = servers
    loop = asyncio.get_running_loop()
    status, invitation = await loop.run_in_executor(
        None, api, a_url, tokens["anna"], "/api/invitations/", {"to": "bernd", "extra_wild": True}
    )
    assert status == 201
    status, accepted = await loop.run_in_executor(
        None, api, b_url, tokens["bernd"], f"/api/invitations/{invitation['id']}/accept/", {}
    )
    assert status == 201
    game_id = accepted["game"]
    (anna_final, anna_count), (bernd_final, bernd_count) = await asyncio.wait_for(
        asyncio.gather(
            play(a_url, cookies["anna"], game_id, 1), play(b_url, cookies["bernd"], game_id, 2)
        ),
        timeout=180,
    )
    a, b = anna_final["game"]["view"]["result"], bernd_final["game"]["view"]["result"]
    assert a["me"] == b["opponent"] and a["opponent"] == b["me"]
    assert anna_final["version"] == bernd_final["version"]
    # Each side saw the other's moves pushed through the other server.
    assert anna_count > 60 and bernd_count > 60
