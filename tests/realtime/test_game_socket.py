"""The game socket with WebsocketCommunicator: perspectives, watchers, every bad input."""

import json

import pytest
from channels.db import database_sync_to_async

from games.models import Event, Game

from .protocol import check, opponent_arrived

pytestmark = pytest.mark.django_db(transaction=True)


@database_sync_to_async
def current(game):
    game.refresh_from_db()
    return game.version, Event.objects.filter(game=game).count(), json.dumps(game.state)


@database_sync_to_async
def mover(game, players):
    game.refresh_from_db()
    name = game.to_move.username
    return name, ("bernd" if name == "anna" else "anna")


async def connected(sockets, game, user):
    socket, ok, _ = await sockets(f"/ws/games/{game.pk}/", user)
    assert ok
    first = check(await socket.receive_json_from(timeout=5))
    assert first["type"] == "state" and first["version"] == first["game"]["version"]
    return socket, first


async def test_both_players_receive_the_new_state_from_their_own_side(sockets, game, players):
    name, other = await mover(game, players)
    actor, start = await connected(sockets, game, players[name])
    watcher_side, _ = await connected(sockets, game, players[other])
    await opponent_arrived(actor)
    assert start["game"]["view"]["turn"] == "me"
    await actor.send_json_to(
        {
            "type": "command",
            "command": {"type": "roll"},
            "expected_version": start["version"],
            "client_id": "c-1",
        }
    )
    messages = [await actor.receive_json_from(timeout=5) for _ in range(2)]
    ack = next(m for m in messages if m["type"] == "ack")
    state = next(m for m in messages if m["type"] == "state")
    assert ack == {"type": "ack", "client_id": "c-1", "version": start["version"] + 1}
    assert state["version"] == start["version"] + 1
    assert state["game"]["view"]["roll"]["by"] == "me"
    pushed = await watcher_side.receive_json_from(timeout=5)
    assert pushed["type"] == "state" and pushed["version"] == state["version"]
    assert pushed["game"]["view"]["roll"]["by"] == "opponent"
    assert pushed["game"]["players"] == {"me": other, "opponent": name}
    assert await actor.receive_nothing() and await watcher_side.receive_nothing()


async def test_a_watcher_sees_updates_from_seat_0_and_cannot_act(sockets, game, players):
    name, _ = await mover(game, players)
    watcher, start = await connected(sockets, game, players["carl"])
    assert start["game"]["watching"] is True and start["game"]["view"]["legal"] == []
    before = await current(game)
    await watcher.send_json_to(
        {
            "type": "command",
            "command": {"type": "roll"},
            "expected_version": start["version"],
            "client_id": "w-1",
        }
    )
    error = await watcher.receive_json_from(timeout=5)
    assert error["type"] == "error" and error["code"] == "read_only"
    assert error["client_id"] == "w-1"
    assert await current(game) == before
    actor, _ = await connected(sockets, game, players[name])
    await actor.send_json_to(
        {
            "type": "command",
            "command": {"type": "roll"},
            "expected_version": start["version"],
            "client_id": "a-1",
        }
    )
    pushed = await watcher.receive_json_from(timeout=5)
    assert pushed["type"] == "state" and pushed["version"] == start["version"] + 1


async def test_anonymous_connections_are_refused(sockets, game):
    _, ok, code = await sockets(f"/ws/games/{game.pk}/")
    assert not ok and code == 4401
    _, ok, _ = await sockets("/ws/lobby/")
    assert not ok


async def test_cross_origin_connections_are_refused(sockets, game, players):
    _, ok, _ = await sockets(
        f"/ws/games/{game.pk}/", players["anna"], origin=b"http://evil.example"
    )
    assert not ok


async def test_an_unknown_game_is_refused(sockets, players):
    _, ok, code = await sockets("/ws/games/987654/", players["anna"])
    assert not ok and code == 4404


BAD_INPUTS = [
    ("not json", "malformed_json"),
    ("[1, 2]", "bad_request"),
    ('{"no": "type"}', "bad_request"),
    ('{"type": "dance"}', "unknown_type"),
    (
        '{"type": "command", "command": {"type": "fly"}, "expected_version": V, "client_id": "b1"}',
        "bad_command",
    ),
    (
        '{"type": "command", "command": {"type": "shanghai"}, "expected_version": V, '
        '"client_id": "b2"}',
        "cannot_shanghai_yet",
    ),
    (
        '{"type": "command", "command": {"type": "roll"}, "expected_version": 0, '
        '"client_id": "b3"}',
        "stale_version",
    ),
    ('{"type": "command", "command": {"type": "roll"}, "expected_version": V}', "bad_request"),
    (
        '{"type": "command", "command": {"type": "roll"}, "expected_version": V, "client_id": "b4",'
        ' "extra": 1}',
        "bad_request",
    ),
    (
        '{"type": "command", "command": {"type": "roll"}, "expected_version": V, "client_id": "b5",'
        ' "pad": "' + "x" * 17000 + '"}',
        "too_large",
    ),
    # every frame is held to its declaration (games.socket_messages): no unknown field
    (
        '{"type": "command", "command": {"type": "roll", "die": 0}, "expected_version": V,'
        ' "client_id": "b6"}',
        "bad_command",
    ),
    (
        '{"type": "command", "command": {"type": "roll"}, "expected_version": "V",'
        ' "client_id": "b7"}',
        "bad_request",
    ),
    (
        '{"type": "command", "command": {"type": "roll"}, "expected_version": -1,'
        ' "client_id": "b8"}',
        "bad_request",
    ),
    ('{"type": "sync", "since": 3}', "bad_request"),
    ('{"type": "chat", "text": "hi", "to": "all"}', "bad_request"),
]


@pytest.mark.parametrize(("frame", "code"), BAD_INPUTS)
async def test_bad_input_gets_an_error_changes_nothing_and_keeps_the_socket(
    sockets, game, players, frame, code
):
    name, _ = await mover(game, players)
    socket, start = await connected(sockets, game, players[name])
    before = await current(game)
    await socket.send_to(text_data=frame.replace("V", str(start["version"])))
    error = check(await socket.receive_json_from(timeout=5))
    assert error["type"] == "error" and error["code"] == code and error["message"]
    assert await current(game) == before
    await socket.send_json_to({"type": "sync"})
    again = await socket.receive_json_from(timeout=5)
    assert again["type"] == "state" and again["version"] == start["version"]


async def test_binary_frames_are_refused(sockets, game, players):
    socket, _ = await connected(sockets, game, players["anna"])
    await socket.send_to(bytes_data=b"\x00\x01")
    assert (await socket.receive_json_from(timeout=5))["code"] == "bad_frame"


async def test_the_player_not_on_turn_gets_the_engines_code(sockets, game, players):
    _, other = await mover(game, players)
    socket, start = await connected(sockets, game, players[other])
    await socket.send_json_to(
        {
            "type": "command",
            "command": {"type": "roll"},
            "expected_version": start["version"],
            "client_id": "n1",
        }
    )
    assert (await socket.receive_json_from(timeout=5))["code"] == "not_your_turn"


async def test_an_abort_is_refused_with_cannot_abort_and_changes_nothing(sockets, game, players):
    """The game is dealt as it starts: neither player may call it off, at any point."""
    before = await current(game)
    for name in ("anna", "bernd"):
        socket, start = await connected(sockets, game, players[name])
        assert {"type": "abort"} not in start["game"]["view"]["legal"]
        await socket.send_json_to(
            {
                "type": "command",
                "command": {"type": "abort"},
                "expected_version": start["version"],
                "client_id": f"abort-{name}",
            }
        )
        error = check(await socket.receive_json_from(timeout=5))
        assert error["type"] == "error" and error["code"] == "cannot_abort"
        assert "resign" in error["message"]
        assert await socket.receive_nothing()
    assert await current(game) == before


async def test_more_than_20_commands_a_second_are_rate_limited(sockets, game, players):
    _, other = await mover(game, players)
    socket, start = await connected(sockets, game, players[other])
    for i in range(25):
        await socket.send_json_to(
            {
                "type": "command",
                "command": {"type": "roll"},
                "expected_version": start["version"],
                "client_id": f"r{i}",
            }
        )
    codes = [(await socket.receive_json_from(timeout=5))["code"] for _ in range(25)]
    assert codes[:20] == ["not_your_turn"] * 20
    assert codes[20:] == ["rate_limited"] * 5


async def test_a_repeated_client_id_is_acknowledged_once_and_applied_once(sockets, game, players):
    name, _ = await mover(game, players)
    socket, start = await connected(sockets, game, players[name])
    message = {
        "type": "command",
        "command": {"type": "roll"},
        "expected_version": start["version"],
        "client_id": "same",
    }
    await socket.send_json_to(message)
    await socket.send_json_to(message)
    received = [await socket.receive_json_from(timeout=5) for _ in range(3)]
    acks = [m for m in received if m["type"] == "ack"]
    assert [a["version"] for a in acks] == [start["version"] + 1] * 2
    assert await database_sync_to_async(Event.objects.filter(game=game, kind="rolled").count)() == 1


async def test_a_reconnect_gets_the_current_version(sockets, game, players):
    name, _ = await mover(game, players)
    socket, start = await connected(sockets, game, players[name])
    await socket.send_json_to(
        {
            "type": "command",
            "command": {"type": "roll"},
            "expected_version": start["version"],
            "client_id": "x1",
        }
    )
    await socket.receive_json_from(timeout=5)
    await socket.receive_json_from(timeout=5)
    await socket.disconnect()
    again, state = await connected(sockets, game, players[name])
    version = await database_sync_to_async(lambda: Game.objects.get(pk=game.pk).version)()
    assert state["version"] == version == start["version"] + 1
