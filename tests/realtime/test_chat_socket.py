"""Chat and moderation over the game socket."""

import pytest
from channels.db import database_sync_to_async

from moderation import services as moderation

from .protocol import check, opponent_arrived

pytestmark = pytest.mark.django_db(transaction=True)


async def joined(sockets, game, user):
    socket, ok, _ = await sockets(f"/ws/games/{game.pk}/", user)
    assert ok
    assert check(await socket.receive_json_from(timeout=5))["type"] == "state"
    return socket


async def test_chat_reaches_both_players_and_hidden_messages_are_withdrawn(
    sockets, game, players, moderator
):
    anna = await joined(sockets, game, players["anna"])
    bernd = await joined(sockets, game, players["bernd"])
    await opponent_arrived(anna)
    await anna.send_json_to(check({"type": "chat", "text": "<i>Ahoy</i>"}, "client"))
    mine = check(await anna.receive_json_from(timeout=5))
    theirs = check(await bernd.receive_json_from(timeout=5))
    assert mine["message"]["by"] == "me" and theirs["message"]["by"] == "opponent"
    assert theirs["message"]["text"] == "<i>Ahoy</i>"
    await database_sync_to_async(moderation.do_hide_message)(
        mine["message"]["id"], moderator, "test"
    )
    for socket in (anna, bernd):
        hidden = check(await socket.receive_json_from(timeout=5))
        assert hidden == {"type": "chat_hidden", "id": mine["message"]["id"]}


async def test_watchers_cannot_chat_and_bad_chat_gets_errors(sockets, game, players):
    carl = await joined(sockets, game, players["carl"])
    await carl.send_json_to({"type": "chat", "text": "hi"})
    assert check(await carl.receive_json_from(timeout=5))["code"] == "not_a_player"
    anna = await joined(sockets, game, players["anna"])
    await anna.send_json_to({"type": "chat", "text": "x" * 501})
    assert check(await anna.receive_json_from(timeout=5))["code"] == "too_long"
    await anna.send_json_to({"type": "chat", "text": "hi", "to": "all"})
    assert check(await anna.receive_json_from(timeout=5))["code"] == "bad_request"


async def test_an_annulled_game_shows_its_result_on_both_sockets(sockets, game, players, moderator):
    anna = await joined(sockets, game, players["anna"])
    bernd = await joined(sockets, game, players["bernd"])
    await opponent_arrived(anna)
    await database_sync_to_async(moderation.do_annul)(game.pk, moderator, "test")
    for socket in (anna, bernd):
        state = check(await socket.receive_json_from(timeout=5))
        assert state["game"]["status"] == "annulled"
        assert state["game"]["view"]["result"]["reason"] == "annulled"
