"""A burst of group messages reaches every socket of two Daphne processes.

Hundreds of game sockets, split over two processes that share PostgreSQL and Redis; the
test process sends a quick burst through ``games.live.broadcast``, and every socket must
receive every message of its game: each chat notice once, and a fresh state for each
forced update. (channels-redis's core layer drops group messages in such a burst, which
froze games; the pub/sub layer hands every one on.)

Runs where DATABASE_URL is PostgreSQL and REDIS_URL is set (CI's second suite).
"""

import asyncio
import json
import os
from collections import Counter

import pytest
import websockets
from asgiref.sync import sync_to_async

from games.live import broadcast

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

GAMES = 4
SOCKETS = 300  # over the games, the two processes and three viewers (two players, a watcher)
MESSAGES = 600  # round robin over the games
STATE_EVERY = 30  # every 30th message is a forced update (a fresh state for every socket)
QUIET = 8  # seconds without a message after which a socket's missing messages are lost


@pytest.fixture
def servers(players):
    """Two Daphne processes on the test database and Redis; their URLs."""
    env = {"DATABASE_URL": database_url(), "REDIS_URL": os.environ["REDIS_URL"]}
    env["SOCKETS_PER_ACCOUNT"] = str(SOCKETS)  # three accounts hold them all
    with start_server(count=2, env=env) as urls:
        yield urls


@pytest.fixture
def games(players):
    from games.services import invitations

    made = []
    for i in range(GAMES):
        host, guest = ("anna", "bernd") if i % 2 == 0 else ("bernd", "anna")
        invitation = invitations.do_invite(players[host], to=guest)
        made.append(invitations.do_accept_invitation(invitation.pk, players[guest]))
    return made


def burst(games) -> tuple[list, dict]:
    """The messages to send, in order, and what each game's sockets must receive."""
    plan, expected = [], {game.pk: {"ids": set(), "states": 0} for game in games}
    for i in range(MESSAGES):
        game = games[i % len(games)]
        if i % STATE_EVERY == STATE_EVERY - 1:
            plan.append((game, "state", game.version))
            expected[game.pk]["states"] += 1
        else:
            plan.append((game, "chat_hidden", i))
            expected[game.pk]["ids"].add(i)
    return plan, expected


def send(plan) -> None:
    for game, kind, value in plan:
        if kind == "state":
            broadcast.game_changed(game.pk, value, force=True, players=())
        else:
            broadcast.chat_hidden(game.pk, value)


async def open_socket(url, cookie, game_id, limit):
    async with limit:
        socket = await websockets.connect(
            url.replace("http", "ws") + f"/ws/games/{game_id}/",
            origin=url,
            additional_headers={"Cookie": cookie},
            open_timeout=20,
        )
        # the first state comes once the socket is in its game's group
        first = check(json.loads(await asyncio.wait_for(socket.recv(), timeout=20)))
        assert first["type"] == "state", first
        return socket


async def collect(socket, expected) -> tuple[Counter, int]:
    """The chat ids and the number of states this socket receives, until it has all it
    should or nothing comes for QUIET seconds."""
    ids, states, total = Counter(), 0, len(expected["ids"]) + expected["states"]
    while sum(ids.values()) + states < total:
        try:
            message = json.loads(await asyncio.wait_for(socket.recv(), timeout=QUIET))
        except TimeoutError:
            break
        if message["type"] == "chat_hidden":
            if not ids:
                check(message)
            ids[message["id"]] += 1
        elif message["type"] == "presence":  # the other player's boards opening
            continue
        else:
            assert message["type"] == "state", message
            states += 1
    return ids, states


async def test_every_socket_of_two_processes_receives_every_message_of_a_burst(
    servers, games, cookies
):
    names = sorted(cookies)
    plan, expected = burst(games)
    limit = asyncio.Semaphore(50)
    where = [  # socket k: its game, its process, its viewer
        (games[k % GAMES], servers[(k // GAMES) % 2], names[(k // (2 * GAMES)) % len(names)])
        for k in range(SOCKETS)
    ]
    sockets = await asyncio.gather(
        *(open_socket(url, cookies[name], game.pk, limit) for game, url, name in where)
    )
    try:
        collecting = [
            asyncio.ensure_future(collect(socket, expected[game.pk]))
            for socket, (game, _, _) in zip(sockets, where, strict=True)
        ]
        # broadcast's async_to_sync sends on this loop's layer, as a server's views do
        await sync_to_async(send, thread_sensitive=False)(plan)
        received = await asyncio.gather(*collecting)
    finally:
        await asyncio.gather(*(socket.close() for socket in sockets))

    short, doubled = {}, {}
    for k, ((ids, states), (game, url, name)) in enumerate(zip(received, where, strict=True)):
        want = expected[game.pk]
        missing = len(want["ids"] - set(ids)) + max(0, want["states"] - states)
        strange = len(set(ids) - want["ids"])  # another game's
        if missing or strange:
            short[k] = f"game {game.pk} on {url} as {name}: {missing} missing, {strange} strange"
        if any(n > 1 for n in ids.values()) or states > want["states"]:
            doubled[k] = f"game {game.pk} on {url} as {name}"
    each = len(plan) // GAMES
    assert not short, (
        f"{len(short)} of {SOCKETS} sockets did not get their messages (of {each} each), "
        f"e.g. {list(short.values())[:3]}"
    )
    assert not doubled, f"{len(doubled)} sockets got a message twice: {list(doubled.values())[:3]}"
