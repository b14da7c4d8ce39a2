"""Generated and broken frames on the game socket (a player's and a watcher's) and the lobby.

Whatever arrives, the server never closes the socket and never fails a handler
(``server_error``); a refused frame gets exactly one ``error`` and changes no row; and
the socket still answers: ``sync`` with a ``state``, ``ping`` with ``pong``. Every code
met is in docs/protocol.md.

Each example opens a socket, sends a few frames and closes it. After each frame comes a
marker, a command with nothing but a ``client_id``, refused with that id echoed: what
arrives before the marker's answer is the frame's (its answer, and pushes).
"""

from __future__ import annotations

import asyncio
import json

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from channels.testing import WebsocketCommunicator
from django.core.cache import cache
from hypothesis import given
from hypothesis import strategies as st

from games import rules
from games.models import Game
from games.rules.shapes import COMMAND_TYPES
from shanghaien.asgi import application
from tests.helpers.communicators import site_origin
from tests.realtime.protocol import check

from .snapshots import PLAUSIBLE, changes, new_game, only_added, snapshot
from .strategies import (
    any_value,
    chat_text,
    fuzz,
    hostile_text,
    mutated,
    pick,
    socket_frame,
    undocumented,
)

pytestmark = pytest.mark.django_db(transaction=True)

TIMEOUT = 10  # seconds for an answer that must come; only a failing run waits this long
PUSHES = {"state", "chat", "chat_hidden", "presence"}  # what the game socket may send unasked
OTHER_TYPES = ["ping", "Sync", "COMMAND", "", "state", "ack", "error", "chat_hidden", "hello"]


class Games:
    """The game the sockets play: a new one once it has ended."""

    def __init__(self, players, game):
        self.players = players
        self.game = game
        self.ids = 0
        self.known = None  # the rows as the last frame left them

    def current(self) -> Game:
        self.game.refresh_from_db()
        if self.game.status != Game.Status.ACTIVE:
            self.game = new_game(self.players["anna"], self.players["bernd"])
            self.known = None
        return self.game

    def fresh_id(self) -> str:
        self.ids += 1
        return f"fuzz-{self.ids}"


@pytest.fixture
def games(players, game):
    return Games(players, game)


def open_socket(path: str, cookie: str) -> WebsocketCommunicator:
    """A socket as the site's page opens it, with its cookie; or, for a ``cookie`` that
    is ``Bearer <token>``, as a program does, with that token and no Origin."""
    if cookie.startswith("Bearer "):
        headers = [(b"host", b"localhost"), (b"authorization", cookie.encode())]
        return WebsocketCommunicator(application, path, headers=headers)
    headers = [(b"origin", site_origin()), (b"host", b"localhost")]
    headers.append((b"cookie", cookie.encode()))
    return WebsocketCommunicator(application, path, headers=headers)


async def send(socket, frame) -> None:
    kind, payload = frame
    key = "text" if kind == "text" else "bytes"
    await socket.send_input({"type": "websocket.receive", key: payload})


async def receive(socket, what: str) -> dict:
    output = await socket.receive_output(TIMEOUT)
    assert output["type"] == "websocket.send", f"the server closed the socket ({what}): {output}"
    assert output.get("text") is not None, f"a binary frame from the server ({what})"
    return json.loads(output["text"])


def shown(frame) -> str:
    return f"{frame[0]} frame {frame[1][:300]!r}"


def type_of(frame) -> str | None:
    """The ``type`` the frame asks for, if it is a JSON object with one."""
    kind, payload = frame
    try:
        message = json.loads(payload) if kind == "text" else None
    except (ValueError, RecursionError):
        return None
    return message.get("type") if isinstance(message, dict) else None


# What answers a frame that was taken, by the type it asked for: a command its ack, a sync
# its state, a chat its broadcast (or nothing before the marker: the row then shows it).
TAKEN = {"command": {"ack"}, "sync": {"state"}, "chat": {"chat"}}


# -- what the game socket is sent ---------------------------------------------------------


def plan_game_frame(draw, games: Games):
    game = games.current()
    state = game.rules_state()
    kind = draw(st.sampled_from(["command"] * 4 + ["chat"] * 2 + ["sync", "other", "junk"]))
    if kind == "command":
        legal = rules.legal_commands(state, state.turn if state.turn is not None else 0)
        calm = [c for c in legal if c["type"] not in ("resign", "abort")] or [{"type": "roll"}]
        command = pick(draw, calm) if draw(st.integers(0, 2)) else pick(draw, PLAUSIBLE)
        client_id = draw(st.sampled_from(["fresh"] * 5 + ["a" * 64 + "\n", "", "a" * 65]))
        message = {
            "type": "command",
            "command": command,
            "expected_version": draw(st.sampled_from([game.version] * 6 + [game.version - 1])),
            "client_id": games.fresh_id() if client_id == "fresh" else client_id,
        }
        extra = [*COMMAND_TYPES, "left", "right", 0, 1, game.version, *legal, *PLAUSIBLE]
        value = draw(mutated(message, extra))
    elif kind == "chat":
        value = draw(mutated({"type": "chat", "text": draw(chat_text)}, ["gg", "chat", "sync"]))
    elif kind == "sync":
        value = draw(mutated({"type": "sync"}, ["sync", "command", "chat"]))
    elif kind == "other":
        value = {"type": draw(st.one_of(st.sampled_from(OTHER_TYPES), hostile_text))}
    else:
        value = draw(any_value)
    return draw(socket_frame(value))


async def sync_answers(socket, run) -> None:
    """``sync`` gets a ``state``; if sync was rate-limited, again after retry_after."""
    for _ in range(3):
        await send(socket, ("text", json.dumps({"type": "sync"})))
        while (message := await receive(socket, "sync")).get("type") in PUSHES - {"state"}:
            pass
        if message["type"] == "state":
            assert message["version"] == message["game"]["version"]
            return
        assert message["type"] == "error" and message["code"] == "rate_limited", message
        run.codes[message["code"]] += 1
        await asyncio.sleep(message["retry_after"])
    raise AssertionError("sync was refused three times")


async def game_socket_example(draw, games: Games, cookies, who: str, run) -> None:
    """One socket, a few frames, each checked; then the socket must still answer sync."""
    get_snapshot = sync_to_async(snapshot)
    plan = sync_to_async(plan_game_frame)
    game = await sync_to_async(games.current)()
    socket = open_socket(f"/ws/games/{game.pk}/", cookies[who])
    connected, code = await socket.connect(TIMEOUT)
    assert connected, f"the handshake was refused with {code}"
    assert (await receive(socket, "connect"))["type"] == "state"
    for marker in range(await sync_to_async(draw)(st.integers(1, 8))):
        frame = await plan(draw, games)
        before = games.known or await get_snapshot()
        await send(socket, frame)
        await send(socket, ("text", json.dumps({"type": "command", "client_id": f"mark-{marker}"})))
        run.messages += 1
        answers = []
        while (message := await receive(socket, shown(frame))).get("client_id") != f"mark-{marker}":
            answers.append(message)
        assert message["type"] == "error", f"the marker was answered {message}"
        errors = [m for m in answers if m["type"] == "error"]
        for error in errors:
            run.codes[error["code"]] += 1
            assert error["code"] != "server_error", f"{shown(frame)} failed the handler"
            check(error)  # the shape docs/protocol.md gives
            if error["code"] == "rate_limited":
                assert error["retry_after"] > 0, error
        assert len(errors) <= 1, f"{shown(frame)} got {len(errors)} errors: {errors}"
        after = await get_snapshot()
        if errors:
            assert after == before, (
                f"{shown(frame)} got {errors[0]} and changed {changes(before, after)}"
            )
        else:
            asked = type_of(frame)
            replied = {m["type"] for m in answers} & TAKEN.get(asked, set())
            stored_chat = asked == "chat" and only_added(before, after, "chat")
            assert replied or stored_chat, f"{shown(frame)} got no answer: {answers}"
            run.accepted += 1
        games.known = after
    while not await socket.receive_nothing(timeout=0.005):
        message = await receive(socket, "after the frames")
        assert message["type"] in PUSHES, f"an answer nobody asked for: {message}"
    await sync_answers(socket, run)
    await socket.disconnect()


def fuzz_game_socket(games, cookies, run, role: str, weight: float) -> None:
    @fuzz(weight)
    @given(data=st.data())
    def example(data):
        if data.draw(st.integers(0, 3)):
            cache.clear()  # mostly a fresh chat allowance; sometimes the one spent before
        game = games.current()
        mover = game.to_move.username if game.to_move else "anna"
        other = "bernd" if mover == "anna" else "anna"
        if role == "watcher":
            who = "carl"
        elif role == "reader":
            who = f"{mover}-reader"  # the mover's read token: it may sync, never act
        else:
            who = data.draw(st.sampled_from([mover] * 3 + [other]))
        async_to_sync(game_socket_example)(data.draw, games, cookies, who, run)
        run.examples += 1

    example()
    print(f"error codes met: {', '.join(f'{c} {n}' for c, n in sorted(run.codes.items()))}")
    missing = undocumented(run.codes, "protocol.md")
    assert not missing, f"error codes missing from docs/protocol.md: {missing}"


def test_game_socket_as_a_player(games, cookies, fuzz_run):
    fuzz_game_socket(games, cookies, fuzz_run, "player", weight=0.5)


def test_game_socket_as_a_watcher(games, cookies, fuzz_run):
    fuzz_game_socket(games, cookies, fuzz_run, "watcher", weight=0.3)


@pytest.fixture
def with_read_tokens(players, cookies):
    """The players' cookies, and for anna and bernd a ``read`` token each (``<name>-reader``)."""
    from accounts.models import ApiToken

    readers = {
        f"{name}-reader": "Bearer " + ApiToken.issue(players[name], "reader", ("read",))[1]
        for name in ("anna", "bernd")
    }
    return {**cookies, **readers}


def test_game_socket_with_a_read_token(games, with_read_tokens, fuzz_run):
    fuzz_game_socket(games, with_read_tokens, fuzz_run, "reader", weight=0.3)
    assert fuzz_run.codes["insufficient_scope"] > 0


# -- the lobby -----------------------------------------------------------------------------


def plan_lobby_frame(draw, tournaments=(1,)):
    kind = draw(st.sampled_from(["ping"] * 3 + ["watch"] * 2 + ["other", "junk"]))
    if kind == "ping":
        value = draw(mutated({"type": "ping"}, ["ping", "pong", "sync"]))
    elif kind == "watch":
        ids = [*tournaments, 0, -1, 2**63, "1", 1.5, None]
        watch = {
            "type": "watch",
            "topic": draw(st.sampled_from(["tournament"] * 4 + ["game", "", "Tournament"])),
            "id": draw(st.sampled_from([*tournaments] * 4 + ids)),
        }
        value = draw(mutated(watch, ["tournament", "watch", *ids]))
    elif kind == "other":
        value = {"type": draw(st.one_of(st.sampled_from(OTHER_TYPES), hostile_text))}
    else:
        value = draw(any_value)
    return draw(socket_frame(value))


def a_tournament() -> tuple[int, ...]:
    """The id of a tournament to watch (made once)."""
    import datetime as dt

    from django.utils import timezone

    from accounts.models import User
    from tournaments.models import Tournament
    from tournaments.services import entries

    ids = tuple(Tournament.objects.values_list("pk", flat=True)[:1])
    if ids:
        return ids
    soon = timezone.now() + dt.timedelta(days=2)
    maker = User.objects.get(username="bernd")
    made = entries.do_create(maker, name="Cup", format="knockout", signup_deadline=soon)
    return (made.pk,)


async def lobby_example(draw, cookie, run, tournaments=(1,)) -> None:
    """Every frame gets exactly one answer, pong, watching or error; the lobby then still
    pongs."""
    socket = open_socket("/ws/lobby/", cookie)
    connected, code = await socket.connect(TIMEOUT)
    assert connected, f"the handshake was refused with {code}"
    assert (await receive(socket, "connect"))["type"] == "hello"
    for _ in range(await sync_to_async(draw)(st.integers(1, 8))):
        frame = await sync_to_async(plan_lobby_frame)(draw, tournaments)
        await send(socket, frame)
        run.messages += 1
        answer = await receive(socket, shown(frame))
        assert answer["type"] in ("pong", "watching", "error"), f"{shown(frame)} got {answer}"
        check(answer)
        if answer["type"] == "error":
            run.codes[answer["code"]] += 1
            assert answer["code"] != "server_error", f"{shown(frame)} failed the handler"
        else:
            run.accepted += 1
        assert await socket.receive_nothing(timeout=0.01), f"{shown(frame)} got two answers"
    await send(socket, ("text", json.dumps({"type": "ping"})))
    assert await receive(socket, "the last ping") == {"type": "pong"}
    await socket.disconnect()


def test_lobby_socket(players, cookies, fuzz_run):
    get_snapshot = sync_to_async(snapshot)
    tournaments = a_tournament()  # one to watch

    @fuzz(weight=0.3)
    @given(data=st.data())
    def example(data):
        who = data.draw(st.sampled_from(["anna", "bernd", "carl"]))

        async def checked():
            before = await get_snapshot()
            await lobby_example(data.draw, cookies[who], fuzz_run, tournaments)
            after = await get_snapshot()
            assert after == before, f"the lobby changed {changes(before, after)}"

        async_to_sync(checked)()
        fuzz_run.examples += 1

    example()
    codes = fuzz_run.codes
    print(f"error codes met: {', '.join(f'{c} {n}' for c, n in sorted(codes.items()))}")
    missing = undocumented(codes, "protocol.md")
    assert not missing, f"error codes missing from docs/protocol.md: {missing}"
