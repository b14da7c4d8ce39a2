"""docs/protocol.md: its schemas are valid, and a whole game over the socket follows them."""

import asyncio
import random
import uuid

import pytest

from .protocol import check, validators

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_document_defines_every_message():
    assert set(validators()) == {
        "client.command",
        "client.chat",
        "server.chat",
        "server.chat_hidden",
        "server.state",
        "server.ack",
        "server.error",
        "server.hello",
        "server.your_turn",
        "server.games_changed",
        "server.invitation",
        "server.pong",
    }


def test_the_schemas_are_strict_enough_to_fail():
    with pytest.raises(AssertionError):
        check({"type": "ack", "client_id": "x"})
    with pytest.raises(AssertionError):
        check({"type": "error", "code": "x", "message": "m", "deck": []})
    with pytest.raises(AssertionError):
        check({"type": "teleport"})


async def play(socket, name, rng, log):
    """React to states until the game is over; every message is checked against the doc."""
    pending = command = None
    while True:
        message = check(await socket.receive_json_from(timeout=10))
        log.append((name, message["type"]))
        if message["type"] == "error" and message["code"] == "rate_limited":
            await asyncio.sleep(0.2)  # a polite client waits, then retries the same command
            await socket.send_json_to(command)
            continue
        if message["type"] == "error":
            raise AssertionError(message)
        if message["type"] != "state":
            continue
        view = message["game"]["view"]
        if view["status"] == "finished":
            return message
        if view["turn"] == "me" and pending != message["version"]:
            choices = [c for c in view["legal"] if c["type"] not in ("resign", "abort")]
            command = {
                "type": "command",
                "command": rng.choice(choices),
                "expected_version": message["version"],
                "client_id": str(uuid.uuid4()),
            }
            check(command, "client")
            pending = message["version"]
            await socket.send_json_to(command)


async def test_a_whole_game_over_the_sockets_follows_the_protocol(sockets, game, players):
    anna, ok, _ = await sockets(f"/ws/games/{game.pk}/", players["anna"])
    bernd, ok2, _ = await sockets(f"/ws/games/{game.pk}/", players["bernd"])
    assert ok and ok2
    log = []
    final = await asyncio.wait_for(
        asyncio.gather(
            play(anna, "anna", random.Random(1), log), play(bernd, "bernd", random.Random(2), log)
        ),
        timeout=120,
    )
    a, b = (m["game"]["view"]["result"] for m in final)
    assert a["me"] == b["opponent"] and a["reason"] == "completed"
    assert sum(1 for _, kind in log if kind == "ack") > 40
