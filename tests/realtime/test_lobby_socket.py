import pytest
from channels.db import database_sync_to_async

from games.services import invitations

from .protocol import check

pytestmark = pytest.mark.django_db(transaction=True)


async def lobby(sockets, user):
    socket, ok, _ = await sockets("/ws/lobby/", user)
    assert ok
    hello = check(await socket.receive_json_from(timeout=5))
    assert hello["type"] == "hello"
    return socket, hello


async def test_invitations_reach_both_sides(sockets, players):
    anna, _ = await lobby(sockets, players["anna"])
    bernd, _ = await lobby(sockets, players["bernd"])
    invitation = await database_sync_to_async(invitations.do_invite)(players["anna"], to="bernd")
    for socket in (anna, bernd):
        message = check(await socket.receive_json_from(timeout=5))
        assert message["type"] == "invitation" and message["event"] == "received"
        assert message["invitation"]["id"] == invitation.pk
    await database_sync_to_async(invitations.do_decline_invitation)(invitation.pk, players["bernd"])
    message = await anna.receive_json_from(timeout=5)
    assert message["event"] == "declined" and message["invitation"]["status"] == "declined"


async def test_your_turn_and_games_changed_are_pushed(sockets, players):
    anna, hello = await lobby(sockets, players["anna"])
    assert hello["your_turn"] == 0
    invitation = await database_sync_to_async(invitations.do_invite)(players["bernd"], to="anna")
    assert (await anna.receive_json_from(timeout=5))["event"] == "received"
    game = await database_sync_to_async(invitations.do_accept_invitation)(
        invitation.pk, players["anna"]
    )
    messages = []
    while not await anna.receive_nothing(timeout=0.3):
        messages.append(check(await anna.receive_json_from(timeout=5)))
    kinds = [m["type"] for m in messages]
    assert "games_changed" in kinds
    await database_sync_to_async(game.refresh_from_db)()
    anna_moves = await database_sync_to_async(lambda: game.to_move_id)() == players["anna"].pk
    assert ("your_turn" in kinds) == anna_moves
    changed = next(m for m in messages if m["type"] == "games_changed")
    assert changed["game"] == game.pk and changed["your_turn"] == int(anna_moves)


async def test_the_lobby_answers_ping_and_refuses_other_messages(sockets, players):
    socket, _ = await lobby(sockets, players["carl"])
    await socket.send_json_to({"type": "ping"})
    assert await socket.receive_json_from(timeout=5) == {"type": "pong"}
    await socket.send_to(text_data="nope")
    assert (await socket.receive_json_from(timeout=5))["code"] == "malformed_json"
    await socket.send_json_to({"type": "command"})
    assert (await socket.receive_json_from(timeout=5))["code"] == "unknown_type"
    await socket.send_json_to({"type": "ping", "at": 1})  # an unknown field
    refused = await socket.receive_json_from(timeout=5)
    assert refused["code"] == "bad_request" and "at" in refused["message"]
    await socket.send_json_to({"type": "ping"})
    assert await socket.receive_json_from(timeout=5) == {"type": "pong"}
