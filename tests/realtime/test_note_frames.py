"""A private note never rides on a socket: the frames of both players and of a watcher,
before and after a move, and the lobby's, hold no note (tests/games/test_notes.py: HTTP)."""

import json

import pytest
from channels.db import database_sync_to_async

from games.services import notes

from .protocol import check

pytestmark = pytest.mark.django_db(transaction=True)

NOTES = {"anna": "anna-secret-plan-7781", "bernd": "bernd-secret-plan-4410"}


@database_sync_to_async
def write_notes(game, players):
    for name, text in NOTES.items():
        notes.do_save_note(game.pk, players[name], text)
    game.refresh_from_db()
    return game.to_move.username, game.version


async def frames_until(socket, version: int) -> list[dict]:
    """The frames a socket gets up to and with a state of ``version``."""
    frames = []
    while not frames or not (frames[-1]["type"] == "state" and frames[-1]["version"] == version):
        frames.append(check(await socket.receive_json_from(timeout=5)))
    return frames


async def test_no_frame_of_a_player_or_a_watcher_holds_a_note(sockets, game, players):
    mover, version = await write_notes(game, players)
    frames = {}
    opened = {}
    for name in ("anna", "bernd", "carl"):
        socket, ok, _ = await sockets(f"/ws/games/{game.pk}/", players[name])
        assert ok
        opened[name] = socket
        frames[name] = [check(await socket.receive_json_from(timeout=5))]
    lobby, ok, _ = await sockets("/ws/lobby/", players["anna"])
    assert ok
    lobby_frames = [check(await lobby.receive_json_from(timeout=5))]
    move = {"type": "command", "command": {"type": "roll"}, "expected_version": version}
    await opened[mover].send_json_to({**move, "client_id": "note-1"})
    for name, socket in opened.items():
        # the new state (the mover's with its ack), then the state a sync asks for; a
        # player's board also hears of the opponent's board opening (``presence``)
        frames[name] += await frames_until(socket, version + 1)
        await socket.send_json_to({"type": "sync"})
        frames[name] += await frames_until(socket, version + 1)
    lobby_frames.append(check(await lobby.receive_json_from(timeout=5)))
    for name, seen in frames.items():
        assert any(f["type"] == "state" and f["version"] == version + 1 for f in seen), name
        text = json.dumps(seen)
        for author, note in NOTES.items():
            assert note not in text, f"{author}'s note in a frame of {name}'s"
        assert '"note"' not in text
    assert not any(note in json.dumps(lobby_frames) for note in NOTES.values())
