"""What ends a stream and what it holds: the account's places (429 past the cap, given
back when the client goes away), the token's revocation and expiry."""

from __future__ import annotations

import asyncio
import datetime as dt
import gc
import time

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from django.utils import timezone

from accounts.models import ApiToken
from accounts.tokens import TokenUse, token_group
from games.live.reads import FRAMES
from games.live.streams import AccountStream, take_place
from shanghaien.lib.sockets import SLOTS, SocketSlots

from ..helpers.communicators import communicator
from .conftest import StreamClient

pytestmark = pytest.mark.django_db(transaction=True)

PATHS = ["/api/stream/", "/api/games/{game}/stream/"]


def in_group(layer, group: str) -> bool:
    """Whether any channel of this process is in ``group`` (the in-memory layer names it
    as it is, the Redis one with its prefix)."""
    return any(
        members and (name == group or name.endswith(f"__group__{group}"))
        for name, members in layer.groups.items()
    )


def held(user) -> int:
    """The account's places taken, as every process counts them (the cache)."""
    from django.core.cache import cache

    return len(cache.get_many(SocketSlots.keys(user.pk)))


@pytest.fixture
def two_places(settings):
    settings.SOCKETS_PER_ACCOUNT = 2
    return settings


@pytest.mark.parametrize("path", PATHS)
async def test_streams_count_among_the_sockets_and_past_the_cap_answer_429(
    game, players, tokens, cookies, two_places, path
):
    path = path.format(game=game.pk)
    first = StreamClient(path, tokens["anna"])
    assert await first.open() == 200
    # the second place: a lobby socket
    lobby = communicator("/ws/lobby/", cookies["anna"])
    connected, _ = await lobby.connect()
    assert connected and (await lobby.receive_json_from())["type"] == "hello"
    assert await database_sync_to_async(held)(players["anna"]) == 2
    third = StreamClient(path, tokens["anna"])
    assert await third.open() == 429
    body = await third.body()
    assert b'"too_many_streams"' in body and third.headers["retry-after"]
    # Closing the first stream gives its place back: another opens.
    await first.disconnect()
    assert await database_sync_to_async(held)(players["anna"]) == 1
    again = StreamClient(path, tokens["anna"])
    assert await again.open() == 200
    await again.disconnect()
    await lobby.disconnect()


@pytest.mark.parametrize("path", PATHS)
async def test_a_client_that_goes_away_leaves_nothing_behind(game, players, tokens, path):
    stream = StreamClient(path.format(game=game.pk), tokens["bernd"])
    assert await stream.open() == 200
    await stream.line()
    token = await database_sync_to_async(ApiToken.objects.get)(user=players["bernd"])
    layer = get_channel_layer()
    assert await database_sync_to_async(held)(players["bernd"]) == 1
    assert SLOTS.held
    assert in_group(layer, token_group(token.pk))
    await stream.disconnect()
    assert await database_sync_to_async(held)(players["bernd"]) == 0
    assert not SLOTS.held
    assert not in_group(layer, token_group(token.pk))
    assert not in_group(layer, f"user.{players['bernd'].pk}")
    assert not in_group(layer, f"game.{game.pk}")
    assert FRAMES.sockets[game.pk] == 0


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("reason", ["revoked", "expired"])
async def test_a_token_closed_ends_its_streams_with_a_last_line(
    game, players, tokens, path, reason
):
    stream = StreamClient(path.format(game=game.pk), tokens["anna"])
    assert await stream.open() == 200
    await stream.line()
    other = StreamClient(path.format(game=game.pk), tokens["bernd"])
    assert await other.open() == 200
    await other.line()
    token = await database_sync_to_async(ApiToken.objects.get)(user=players["anna"])
    await get_channel_layer().group_send(
        token_group(token.pk), {"type": "token.closed", "reason": reason}
    )
    lines = await stream.rest()
    assert lines[-1]["type"] == "error" and lines[-1]["code"] == f"token_{reason}"
    assert lines[-1]["message"]
    assert all(line["type"] != "error" for line in lines[:-1])
    assert await database_sync_to_async(held)(players["anna"]) == 0
    # bernd's token is another: his stream goes on
    while not await other.communicator.receive_nothing(0.3):
        await other._more(1)
    assert not other.ended and b'"error"' not in other.buffer
    await other.disconnect()


@pytest.mark.parametrize("path", PATHS)
async def test_a_stream_ends_when_its_token_expires(game, players, path):
    soon = timezone.now() + dt.timedelta(seconds=1)
    issue = database_sync_to_async(ApiToken.issue)
    _token, raw = await issue(players["anna"], "brief", expires_at=soon)
    stream = StreamClient(path.format(game=game.pk), raw)
    assert await stream.open() == 200
    lines = await stream.rest(timeout=10)
    assert lines[-1]["type"] == "error" and lines[-1]["code"] == "token_expired"
    assert timezone.now() >= soon
    assert await database_sync_to_async(held)(players["anna"]) == 0


async def test_open_streams_hold_no_database_connection(players, tokens, settings):
    """More streams than the connection pool has connections (PostgreSQL: 12) all open
    and all answer: the request's connection is handed back before each stream begins."""
    pool = settings.DATABASE_POOL_SIZE
    streams = []
    for i in range(pool + 3):
        stream = StreamClient("/api/stream/", tokens[("anna", "bernd", "carl")[i % 3]])
        assert await stream.open(timeout=20) == 200, i
        assert await stream.raw_line() == b""  # the first keep-alive: nothing to tell
        streams.append(stream)
    for stream in streams:
        await stream.disconnect()


def test_a_stream_dropped_before_its_first_line_gives_its_place_back(players):
    """The client went away between the view and the first line: Django cancels the
    response without closing it, and the stream that never ran is collected."""
    place = take_place(players["anna"].pk)
    assert place in SLOTS.held
    response = AccountStream(players["anna"], None, place, "en").response()
    del response
    gc.collect()
    deadline = time.monotonic() + 5
    while held(players["anna"]) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert held(players["anna"]) == 0
    assert place not in SLOTS.held


@pytest.mark.parametrize("path", PATHS)
async def test_revoking_a_token_through_the_api_ends_its_streams_at_once(
    game, players, tokens, path
):
    """The revocation itself (``POST /api/tokens/{id}/revoke/`` with the token), not a
    notice sent by hand: the stream ends with its last line, and the token is refused."""
    stream = StreamClient(path.format(game=game.pk), tokens["anna"])
    assert await stream.open() == 200
    await stream.line()
    token = await database_sync_to_async(ApiToken.objects.get)(user=players["anna"])
    revoke = StreamClient(f"/api/tokens/{token.pk}/revoke/", tokens["anna"], method="POST")
    assert await revoke.open() == 200
    lines = await stream.rest(timeout=10)
    assert lines[-1]["type"] == "error" and lines[-1]["code"] == "token_revoked"
    assert await database_sync_to_async(held)(players["anna"]) == 0
    again = StreamClient(path.format(game=game.pk), tokens["anna"])
    assert await again.open() == 401
    assert b'"bad_token"' in await again.body()


async def test_a_token_revoked_while_its_stream_opens_ends_it_at_once(players):
    """Revoked after the request's check and before the stream joined the token's
    group: its notice went out unheard, so the stream looks once more and ends."""
    token, _raw = await database_sync_to_async(ApiToken.issue)(players["anna"], "brief")
    use = TokenUse(players["anna"], token.pk, frozenset({"read", "play"}), None)
    await database_sync_to_async(token.delete)()
    stream = AccountStream(players["anna"], use, None, "en")

    async def everything():
        return [text async for text in stream.lines()]

    lines = await asyncio.wait_for(everything(), 5)
    assert len(lines) == 1 and b'"token_revoked"' in lines[0]
    assert not in_group(get_channel_layer(), token_group(token.pk))
