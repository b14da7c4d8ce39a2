"""The declared frames (games.socket_messages): docs/protocol.md shows them, they are
strict, the consumers refuse what breaks them, and a whole game over the socket follows them."""

import asyncio
import random
import uuid

import pytest
from django.core.management import CommandError, call_command

from games.management.commands.protocol_schemas import DOC, written

from .protocol import check, validators

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_document_shows_the_declared_schemas():
    call_command("protocol_schemas")  # raises CommandError when they differ


def test_a_changed_declaration_is_seen_in_the_document():
    text = DOC.read_text()
    changed = text.replace('{"const": "pong"', '{"const": "ping-pong"', 1)
    assert changed != text
    assert written(changed) == text  # the block is rewritten from the declaration
    with pytest.raises(CommandError):
        written(text.replace("<!-- schema: server.pong -->", "<!-- schema: server.pang -->"))


def test_every_frame_is_declared():
    assert set(validators()) == {
        "client.command",
        "client.chat",
        "client.sync",
        "client.ping",
        "client.watch",
        "server.chat",
        "server.chat_hidden",
        "server.presence",
        "server.state",
        "server.ack",
        "server.error",
        "server.hello",
        "server.your_turn",
        "server.games_changed",
        "server.invitation",
        "server.pong",
        "server.watching",
        "server.changed",
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
