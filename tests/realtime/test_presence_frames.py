"""The board's word on the opponent follows their sockets: here while their board is
open, online while another of their sockets is, then last seen once the last one closes,
even when that one closes after the board (one more look a moment later)."""

import pytest

from games import consumers

from .protocol import check, opponent_arrived

pytestmark = pytest.mark.django_db(transaction=True)


async def board(sockets, game, user):
    socket, ok, _ = await sockets(f"/ws/games/{game.pk}/", user)
    assert ok
    assert check(await socket.receive_json_from(timeout=5))["type"] == "state"
    return socket


async def test_the_board_hears_the_opponent_leave_after_their_last_socket(
    sockets, game, players, monkeypatch
):
    monkeypatch.setattr(consumers, "PRESENCE_SECOND_LOOK", 0.3)
    anna = await board(sockets, game, players["anna"])
    lobby, ok, _ = await sockets("/ws/lobby/", players["bernd"])
    assert ok
    check(await lobby.receive_json_from(timeout=5))
    bernd = await board(sockets, game, players["bernd"])
    await opponent_arrived(anna, "here")
    await bernd.disconnect()
    await opponent_arrived(anna, "online")  # the lobby still open
    await lobby.disconnect()  # after the board: no notice of its own
    gone = await opponent_arrived(anna, "seen")  # the second look
    assert gone["text"]
    assert await anna.receive_nothing(timeout=0.6)  # told once


async def test_a_second_look_that_finds_the_same_sends_nothing(sockets, game, players, monkeypatch):
    monkeypatch.setattr(consumers, "PRESENCE_SECOND_LOOK", 0.3)
    anna = await board(sockets, game, players["anna"])
    lobby, ok, _ = await sockets("/ws/lobby/", players["bernd"])
    assert ok
    bernd = await board(sockets, game, players["bernd"])
    await opponent_arrived(anna, "here")
    assert await anna.receive_nothing(timeout=0.6)  # an arrival is certain: no second look
    await bernd.disconnect()
    await opponent_arrived(anna, "online")
    assert await anna.receive_nothing(timeout=0.8)  # still online: nothing more
    await lobby.disconnect()
