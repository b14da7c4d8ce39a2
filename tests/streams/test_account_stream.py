"""The account's stream (``GET /api/stream/``): what it opens with, its live lines, its
keep-alives."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async

from games.models import Game, Invitation
from games.services import invitations

from ..helpers.games import play_on
from .conftest import StreamClient

pytestmark = pytest.mark.django_db(transaction=True)


def to_move(game) -> str:
    game.refresh_from_db()
    return game.to_move.username


async def test_it_opens_with_the_running_games_and_the_invitations_received(game, players, tokens):
    invitation = await database_sync_to_async(Invitation.objects.create)(
        from_user=players["carl"], to_user=players["anna"]
    )
    mover = await database_sync_to_async(to_move)(game)
    stream = StreamClient("/api/stream/", tokens["anna"])
    assert await stream.open() == 200
    assert stream.headers["content-type"] == "application/x-ndjson"
    start = await stream.line()
    assert start["type"] == "game_start" and start["game"] == game.pk
    assert start["opponent"] == "bernd" and start["version"] == game.version
    assert start["your_turn"] is (mover == "anna")
    if mover == "anna":
        turn = await stream.line()
        assert turn == {"type": "your_turn", "game": game.pk, "version": game.version}
    received = await stream.line()
    assert received["type"] == "invitation" and received["event"] == "received"
    assert received["invitation"]["id"] == invitation.pk
    assert received["invitation"]["from"] == "carl"
    assert await stream.nothing_more()
    await stream.disconnect()


async def test_invitations_starts_turns_and_ends_as_they_happen(players, tokens):
    stream = StreamClient("/api/stream/", tokens["carl"])
    assert await stream.open() == 200
    # The invitation is told once, whether the stream read it as it opened or heard it.
    invitation = await database_sync_to_async(invitations.do_invite)(players["bernd"], to="carl")
    received = await stream.line()
    assert received["type"] == "invitation" and received["event"] == "received"
    assert received["invitation"]["id"] == invitation.pk
    accept = database_sync_to_async(invitations.do_accept_invitation)
    game = await accept(invitation.pk, players["carl"])
    lines = []  # the start (and carl's turn) and the acceptance, in any order
    while {"invitation", "game_start"} - {line["type"] for line in lines}:
        lines.append(await stream.line())
    accepted = next(line for line in lines if line["type"] == "invitation")
    assert accepted["event"] == "accepted" and accepted["invitation"]["id"] == invitation.pk
    start = next(line for line in lines if line["type"] == "game_start")
    assert start["game"] == game.pk and start["opponent"] == "bernd"
    # The game played to its end: each of carl's turns, told once, then its end.
    await database_sync_to_async(play_on)(game, 4)
    rest = [line for line in lines if line["type"] == "your_turn"]
    rest += await stream.lines_until(lambda line: line["type"] == "game_end", timeout=30)
    turns = [line["version"] for line in rest if line["type"] == "your_turn"]
    assert turns and turns == sorted(set(turns))
    assert {line["type"] for line in rest} <= {"your_turn", "game_end"}
    end = rest[-1]
    await database_sync_to_async(game.refresh_from_db)()
    assert end["game"] == game.pk and end["status"] == Game.Status.FINISHED
    assert end["version"] == game.version
    winner = "me" if game.winner_id == players["carl"].pk else "opponent"
    assert end["result"]["winner"] == (None if game.winner_id is None else winner)
    assert await stream.nothing_more()
    await stream.disconnect()


async def test_a_declined_invitation_is_told(players, tokens, keepalive):
    stream = StreamClient("/api/stream/", tokens["anna"])
    assert await stream.open() == 200
    assert await stream.line(keepalives=True) == {}  # listening (the opening told nothing)
    invitation = await database_sync_to_async(invitations.do_invite)(players["anna"], to="bernd")
    sent = await stream.line()
    assert (sent["event"], sent["invitation"]["to"]) == ("received", "bernd")
    await database_sync_to_async(invitations.do_decline_invitation)(invitation.pk, players["bernd"])
    declined = await stream.line()
    assert declined["type"] == "invitation" and declined["event"] == "declined"
    await stream.disconnect()


async def test_an_idle_stream_sends_keepalives(players, tokens, keepalive):
    stream = StreamClient("/api/stream/", tokens["carl"])
    assert await stream.open() == 200
    for _ in range(3):
        assert await stream.raw_line(timeout=5) == b""
    await stream.disconnect()


async def test_a_session_opens_the_stream_too(cookies):
    stream = StreamClient("/api/stream/", cookie=cookies["anna"])
    assert await stream.open() == 200
    await stream.disconnect()
    anonymous = StreamClient("/api/stream/")
    assert await anonymous.open() == 401


def test_without_asgi_the_stream_sends_its_opening_lines_and_ends(client, game, tokens):
    """The WSGI test client (and schemathesis over it) holds no connection open."""
    response = client.get("/api/stream/", HTTP_AUTHORIZATION=f"Bearer {tokens['anna']}")
    assert response.status_code == 200
    lines = b"".join(response).decode().splitlines()
    assert '"game_start"' in lines[0]
    response = client.get(
        f"/api/games/{game.pk}/stream/", HTTP_AUTHORIZATION=f"Bearer {tokens['anna']}"
    )
    lines = b"".join(response).decode().splitlines()
    assert len(lines) == 1 and '"state"' in lines[0]
