"""One game's stream (``GET /api/games/<id>/stream/``) through the site's ASGI
application: the socket's frames from the viewer's side, each version once and in
order, resumed from a version without a gap or a duplicate, no secret before the end."""

from __future__ import annotations

import asyncio
import json

import pytest
from channels.db import database_sync_to_async

from accounts.models import ApiToken
from games import history
from games.access import access_game
from games.models import Game
from games.services import chat

from ..helpers.games import assert_no_secrets, play_on
from .conftest import StreamClient

pytestmark = pytest.mark.django_db(transaction=True)


def final_version(game) -> int:
    game.refresh_from_db()
    return game.version


async def test_a_player_gets_the_state_and_every_version_once_until_the_end(game, tokens):
    stream = StreamClient(f"/api/games/{game.pk}/stream/", tokens["anna"])
    assert await stream.open() == 200
    assert stream.headers["content-type"] == "application/x-ndjson"
    assert stream.headers["cache-control"] == "no-store"
    assert stream.headers["x-accel-buffering"] == "no"
    first = await stream.line()
    assert first["type"] == "state" and first["version"] == game.version
    assert first["game"]["players"]["me"] == "anna" and not first["game"]["watching"]
    moves = asyncio.ensure_future(database_sync_to_async(play_on)(game, 3))
    lines = [first, *await stream.rest(timeout=60)]
    await moves
    versions = [line["version"] for line in lines if line["type"] == "state"]
    assert versions == sorted(set(versions)), "a version twice or out of order"
    assert versions[-1] == await database_sync_to_async(final_version)(game)
    assert lines[-1]["game"]["status"] == "finished"


async def test_resuming_from_a_version_while_moves_happen_misses_nothing_and_repeats_nothing(
    game, tokens
):
    await database_sync_to_async(play_on)(game, 5, game.version + 6)
    since = await database_sync_to_async(final_version)(game)
    # A stream that saw every version, and one that resumes at ``since``: both opened
    # while the moves go on.
    whole = StreamClient(f"/api/games/{game.pk}/stream/", tokens["bernd"])
    assert await whole.open() == 200
    moves = asyncio.ensure_future(database_sync_to_async(play_on)(game, 5))
    await asyncio.sleep(0.05)
    resumed = StreamClient(f"/api/games/{game.pk}/stream/", tokens["bernd"], f"since={since}")
    assert await resumed.open() == 200
    seen = [line["version"] for line in await whole.rest(timeout=60)]
    again = [line["version"] for line in await resumed.rest(timeout=60)]
    await moves
    last = await database_sync_to_async(final_version)(game)
    assert again == sorted(set(again)) and again[0] > since and again[-1] == last
    assert seen == sorted(set(seen)) and seen[-1] == last
    # No gap: a state lost between opening and listening would leave the stream
    # waiting for ever, never reaching the last version (each state is the whole game,
    # so a stream that was late may skip to a newer one, never back).


async def test_since_the_current_version_sends_nothing_old(game, tokens, keepalive):
    since = game.version
    stream = StreamClient(f"/api/games/{game.pk}/stream/", tokens["anna"], f"since={since}")
    assert await stream.open() == 200
    assert await stream.line(keepalives=True) == {}  # a keep-alive, no state
    await database_sync_to_async(play_on)(game, 1, since + 1)
    state = await stream.line()
    assert state["type"] == "state" and state["version"] > since
    await stream.disconnect()


async def test_a_finished_game_streams_its_last_state_and_ends(game, tokens):
    await database_sync_to_async(play_on)(game, 2)
    last = await database_sync_to_async(final_version)(game)
    stream = StreamClient(f"/api/games/{game.pk}/stream/", tokens["carl"])
    assert await stream.open() == 200
    lines = await stream.rest()
    assert [(line["type"], line["version"]) for line in lines] == [("state", last)]
    resumed = StreamClient(f"/api/games/{game.pk}/stream/", tokens["carl"], f"since={last}")
    assert await resumed.open() == 200
    assert await resumed.rest() == []


def export_secrets(game) -> list[str]:
    """What only a finished game's export reveals: the server's seed, and the deck's
    order (ten cards in a row, past the ones dealt at once)."""
    export = history.export(access_game(None, game.pk))
    deck = export["events"][0]["event"]["deck"]
    return [export["fairness"]["server_seed"], json.dumps(deck[6:16])[1:-1]]


@pytest.mark.parametrize("viewer", ["anna", "carl"])
async def test_no_secret_reaches_a_stream_before_the_game_ends(game, tokens, viewer):
    stream = StreamClient(f"/api/games/{game.pk}/stream/", tokens[viewer])
    assert await stream.open() == 200
    texts = []
    moves = asyncio.ensure_future(database_sync_to_async(play_on)(game, 7))
    while (text := await stream.raw_line(timeout=60)) is not None:
        if text:
            texts.append(text.decode())
    await moves
    secrets = await database_sync_to_async(export_secrets)(game)
    assert len(texts) > 10
    for text in texts[:-1]:  # every line before the finished game's
        assert_no_secrets(json.loads(text))
        for secret in secrets:
            assert secret not in text.replace(" ", "")
    watching = json.loads(texts[0])["game"]["watching"]
    assert watching is (viewer == "carl")
    # The last line, of the game over, shows the server's seed (as the export does).
    assert secrets[0] in texts[-1]


async def test_the_chat_reaches_the_stream(game, players, tokens):
    stream = StreamClient(f"/api/games/{game.pk}/stream/", tokens["anna"])
    assert await stream.open() == 200
    await stream.line()
    said = await database_sync_to_async(chat.do_chat)(game.pk, players["bernd"], "Ahoy")
    line = await stream.line()
    assert line == {"type": "chat", "message": line["message"]}
    assert line["message"]["text"] == "Ahoy" and line["message"]["id"] == said.pk
    await stream.disconnect()


async def test_a_bad_game_or_version_is_refused_before_streaming(game, tokens):
    for path, query, status, code in [
        ("/api/games/999999/stream/", "", 404, "not_found"),
        ("/api/games/x/stream/", "", 404, "not_found"),
        (f"/api/games/{game.pk}/stream/", "since=-1", 400, "bad_request"),
        (f"/api/games/{game.pk}/stream/", "since=abc", 400, "bad_request"),
    ]:
        stream = StreamClient(path, tokens["anna"], query)
        assert await stream.open() == status, (path, query)
        body = json.loads(await stream.body())
        assert set(body) == {"error"}
        assert body["error"]["code"] == code
    anonymous = StreamClient(f"/api/games/{game.pk}/stream/")
    assert await anonymous.open() == 401


async def test_a_read_token_may_open_a_stream(game, players):
    issue = database_sync_to_async(ApiToken.issue)
    _token, raw = await issue(players["anna"], "r", scopes=("read",))
    stream = StreamClient(f"/api/games/{game.pk}/stream/", raw)
    assert await stream.open() == 200
    assert (await stream.line())["type"] == "state"
    await stream.disconnect()


async def test_the_stream_of_a_game_over_ends_without_waiting(game, tokens):
    await database_sync_to_async(play_on)(game, 2)
    stream = StreamClient(f"/api/games/{game.pk}/stream/", tokens["anna"])
    assert await stream.open() == 200
    lines = await stream.rest(timeout=5)
    assert lines[-1]["game"]["status"] == Game.Status.FINISHED
