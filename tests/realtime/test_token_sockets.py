"""Sockets opened with a personal API token (``Authorization: Bearer``): who gets in,
what a token's scopes let it do there, and how a token that stops being good closes the
sockets it opened at once."""

import datetime as dt
import json

import pytest
from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.utils import timezone

from accounts.models import ApiToken
from accounts.tokens import do_revoke_token
from games.models import Event, Game
from shanghaien.lib.sockets import NOT_AUTHENTICATED
from tests.helpers.communicators import session_cookie, site_origin

from .protocol import check

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
async def token_sockets():
    """Opens sockets with a token header (and, if asked, an Origin or a cookie); each is
    closed when the test ends."""
    from shanghaien.asgi import application

    opened = []

    async def open_socket(path, raw, origin=b"", cookie=None):
        headers = [(b"host", b"localhost")]
        if raw is not None:
            headers.append((b"authorization", f"Bearer {raw}".encode()))
        if origin:
            headers.append((b"origin", origin))
        if cookie:
            headers.append((b"cookie", cookie.encode()))
        socket = WebsocketCommunicator(application, path, headers=headers)
        connected, code = await socket.connect()
        opened.append(socket)
        return socket, connected, code

    yield open_socket
    for socket in opened:
        await socket.disconnect()


@database_sync_to_async
def issue(user, scopes=("read", "play"), expires_at=None):
    token, raw = ApiToken.issue(user, "bot", scopes, expires_at)
    return token, raw


@database_sync_to_async
def game_at(game):
    game.refresh_from_db()
    return game.version, Event.objects.filter(game=game).count(), json.dumps(game.state)


@database_sync_to_async
def to_move(game):
    return Game.objects.get(pk=game.pk).to_move


async def opened_board(token_sockets, game, raw):
    socket, ok, code = await token_sockets(f"/ws/games/{game.pk}/", raw)
    assert ok, code
    frames = [check(await socket.receive_json_from(timeout=5))]
    while frames[-1]["type"] != "state":
        frames.append(check(await socket.receive_json_from(timeout=5)))
    return socket, frames[-1]


async def test_a_token_opens_both_sockets_without_an_origin(token_sockets, game, players):
    _, raw = await issue(players["anna"])
    board, state = await opened_board(token_sockets, game, raw)
    assert state["game"]["players"]["me"] == "anna"
    lobby, ok, _ = await token_sockets("/ws/lobby/", raw)
    assert ok
    hello = check(await lobby.receive_json_from(timeout=5))
    assert hello["type"] == "hello"


async def test_a_token_socket_is_let_in_whatever_origin_it_names(token_sockets, game, players):
    """No page can set the header: the token, not the cookie, says who connects."""
    _, raw = await issue(players["anna"])
    _, ok, _ = await token_sockets("/ws/lobby/", raw, origin=b"http://evil.example")
    assert ok


async def test_a_bad_token_refuses_the_handshake_even_with_a_good_cookie(
    token_sockets, game, players
):
    cookie = await sync_to_async(session_cookie)(players["anna"])
    for header in ("shg_not-a-token", ""):
        for path in (f"/ws/games/{game.pk}/", "/ws/lobby/"):
            _, ok, code = await token_sockets(path, header, origin=site_origin(), cookie=cookie)
            assert not ok and code == NOT_AUTHENTICATED, (path, header)


async def test_a_bot_only_token_opens_no_socket(token_sockets, game, players):
    _, raw = await issue(players["anna"], scopes=("bot",))
    for path in (f"/ws/games/{game.pk}/", "/ws/lobby/"):
        _, ok, code = await token_sockets(path, raw)
        assert not ok and code == NOT_AUTHENTICATED, path


async def test_a_revoked_token_refuses_the_handshake(token_sockets, game, players):
    token, raw = await issue(players["anna"])
    await database_sync_to_async(do_revoke_token)(players["anna"], token.pk)
    for path in (f"/ws/games/{game.pk}/", "/ws/lobby/"):
        _, ok, code = await token_sockets(path, raw)
        assert not ok and code == NOT_AUTHENTICATED


async def test_an_expired_token_refuses_the_handshake(token_sockets, game, players):
    _, raw = await issue(players["anna"], expires_at=timezone.now() - dt.timedelta(seconds=1))
    for path in (f"/ws/games/{game.pk}/", "/ws/lobby/"):
        _, ok, code = await token_sockets(path, raw)
        assert not ok and code == NOT_AUTHENTICATED


async def test_revoking_closes_the_open_sockets_of_that_token_at_once(token_sockets, game, players):
    token, raw = await issue(players["anna"])
    _, other = await issue(players["anna"])
    board, _ = await opened_board(token_sockets, game, raw)
    lobby, ok, _ = await token_sockets("/ws/lobby/", raw)
    assert ok and (await lobby.receive_json_from(timeout=5))["type"] == "hello"
    kept, ok, _ = await token_sockets("/ws/lobby/", other)
    assert ok and (await kept.receive_json_from(timeout=5))["type"] == "hello"

    await database_sync_to_async(do_revoke_token)(players["anna"], token.pk)

    for socket in (board, lobby):
        frame = await socket.receive_json_from(timeout=5)
        if frame["type"] == "presence":  # the opponent's side, told before
            frame = await socket.receive_json_from(timeout=5)
        assert check(frame)["type"] == "error" and frame["code"] == "token_revoked", frame
        closed = await socket.receive_output(timeout=5)
        assert closed == {"type": "websocket.close", "code": NOT_AUTHENTICATED}
    await kept.send_json_to({"type": "ping"})  # another token's socket stays open
    assert (await kept.receive_json_from(timeout=5))["type"] == "pong"


async def test_a_password_change_closes_the_tokens_sockets(token_sockets, game, players):
    _, raw = await issue(players["anna"])
    lobby, ok, _ = await token_sockets("/ws/lobby/", raw)
    assert ok and (await lobby.receive_json_from(timeout=5))["type"] == "hello"

    @database_sync_to_async
    def change_password():
        players["anna"].set_password("a-new-secret-77")
        players["anna"].save()

    await change_password()
    frame = check(await lobby.receive_json_from(timeout=5))
    assert frame["code"] == "token_revoked"
    assert (await lobby.receive_output(timeout=5))["code"] == NOT_AUTHENTICATED


async def test_a_suspension_closes_the_tokens_sockets(token_sockets, game, players, moderator):
    from moderation.services import do_suspend

    _, raw = await issue(players["anna"])
    lobby, ok, _ = await token_sockets("/ws/lobby/", raw)
    assert ok and (await lobby.receive_json_from(timeout=5))["type"] == "hello"
    await database_sync_to_async(do_suspend)(players["anna"].pk, moderator, "cheating", 3)
    frame = await lobby.receive_json_from(timeout=5)
    while frame["type"] != "error":  # the lobby hears of the games that ended
        frame = await lobby.receive_json_from(timeout=5)
    assert check(frame)["code"] == "token_revoked"
    assert (await lobby.receive_output(timeout=5))["code"] == NOT_AUTHENTICATED


async def test_an_open_socket_closes_when_its_token_expires(token_sockets, game, players):
    expires = timezone.now() + dt.timedelta(seconds=1.5)
    _, raw = await issue(players["anna"], expires_at=expires)
    board, _ = await opened_board(token_sockets, game, raw)
    frame = check(await board.receive_json_from(timeout=10))
    assert frame["type"] == "error" and frame["code"] == "token_expired"
    assert (await board.receive_output(timeout=5))["code"] == NOT_AUTHENTICATED
    assert timezone.now() >= expires


async def test_a_read_token_cannot_move_or_chat_but_watches(token_sockets, game, players):
    mover = await to_move(game)
    _, raw = await issue(mover, scopes=("read",))
    board, state = await opened_board(token_sockets, game, raw)
    before = await game_at(game)
    await board.send_json_to(
        {
            "type": "command",
            "command": {"type": "roll"},
            "expected_version": state["version"],
            "client_id": "c-1",
        }
    )
    refused = check(await board.receive_json_from(timeout=5))
    assert refused["type"] == "error" and refused["code"] == "insufficient_scope"
    assert refused["client_id"] == "c-1"
    await board.send_json_to({"type": "chat", "text": "hello"})
    assert check(await board.receive_json_from(timeout=5))["code"] == "insufficient_scope"
    assert await game_at(game) == before
    await board.send_json_to({"type": "sync"})  # still open, and it may look
    assert check(await board.receive_json_from(timeout=5))["type"] == "state"


async def test_a_play_token_moves_on_the_socket(token_sockets, game, players):
    mover = await to_move(game)
    _, raw = await issue(mover, scopes=("play",))
    board, state = await opened_board(token_sockets, game, raw)
    await board.send_json_to(
        {
            "type": "command",
            "command": {"type": "roll"},
            "expected_version": state["version"],
            "client_id": "c-1",
        }
    )
    frames = [check(await board.receive_json_from(timeout=5)) for _ in range(2)]
    assert {"type": "ack", "client_id": "c-1", "version": state["version"] + 1} in frames
