"""Sockets that nothing a client sends can close, and that never outlive their presence:
a failing handler answers server_error; a crashed consumer gives its lease back."""

import asyncio
import functools
import math

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from django.core import mail

from accounts.models import User
from games import consumers
from games.live import broadcast
from games.models import ChatMessage, Notification, Seat
from games.notify import send
from games.rules import random_command
from games.services import commands
from moderation.services import do_suspend
from shanghaien.lib import sockets as sockets_lib
from shanghaien.lib.ratelimit import FrameBudget

from ..helpers.accounts import confirmed_address
from ..helpers.choices import choose
from ..helpers.communicators import communicator
from .protocol import check

pytestmark = pytest.mark.django_db(transaction=True)


async def joined(sockets, game, user, path=None):
    socket, ok, _ = await sockets(path or f"/ws/games/{game.pk}/", user)
    assert ok
    first = check(await socket.receive_json_from(timeout=5))
    assert first["type"] in ("state", "hello")
    return socket


async def answers(socket, count):
    return [check(await socket.receive_json_from(timeout=5)) for _ in range(count)]


@database_sync_to_async
def open_sockets(game, user) -> int:
    return Seat.objects.get(game=game, user=user).open_sockets


@database_sync_to_async
def play_until_turn_of(game, user):
    """Both players make random moves (no giving up) until it is ``user``'s turn."""
    import random

    rng = random.Random(3)
    by_seat = {s.seat: s.user for s in game.seats.all()}
    while True:
        game.refresh_from_db()
        if game.to_move_id == user.pk:
            return
        state = game.rules_state()
        seat = state.turn
        while True:
            command = random_command(state, seat, rng)
            if command["type"] not in ("resign", "abort"):
                break
        commands.do_command(game.pk, by_seat[seat], command, game.version, f"c{game.version}")


async def test_a_failing_handler_answers_server_error_and_the_socket_stays(
    sockets, game, players, monkeypatch
):
    name = await database_sync_to_async(lambda: game.to_move.username)()
    socket = await joined(sockets, game, players[name])

    def broken(*args, **kwargs):
        raise RuntimeError("the database went away")

    monkeypatch.setattr(commands, "do_command", broken)
    await socket.send_json_to(
        {"type": "command", "command": {"type": "roll"}, "expected_version": 2, "client_id": "k1"}
    )
    (error,) = await answers(socket, 1)
    assert error["code"] == "server_error" and error["client_id"] == "k1"
    await socket.send_json_to({"type": "sync"})
    (state,) = await answers(socket, 1)
    assert state["type"] == "state" and await socket.receive_nothing()
    assert await open_sockets(game, players[name]) == 1


async def test_a_crashed_consumer_gives_its_lease_back_and_the_turn_email_goes_out(
    game, players, cookies, monkeypatch
):
    """The channel layer fails under an open socket (a Redis blip): the consumer dies
    without the disconnect handshake, yet the player is no longer counted as present."""
    anna, bernd = players["anna"], players["bernd"]
    await database_sync_to_async(confirmed_address)(anna)
    await database_sync_to_async(lambda: choose(User.objects.get(pk=anna.pk), email_on_turn=True))()
    await play_until_turn_of(game, bernd)

    layer = get_channel_layer()
    receive = layer.receive
    failing = asyncio.Event()

    async def receive_until_the_layer_fails(channel):
        if failing.is_set():
            raise ConnectionError("the channel layer is gone")
        return await receive(channel)

    # on the instance: the Redis pub/sub layer's class has no receive method of its own
    monkeypatch.setitem(vars(layer), "receive", receive_until_the_layer_fails)
    socket = communicator(f"/ws/games/{game.pk}/", cookies[anna.username])
    connected, _ = await socket.connect()
    assert connected and (await socket.receive_json_from(timeout=5))["type"] == "state"
    assert await open_sockets(game, anna) == 1

    failing.set()
    version = await database_sync_to_async(lambda: type(game).objects.get(pk=game.pk).version)()
    await database_sync_to_async(broadcast.game_changed)(game.pk, version, True)
    with pytest.raises(ConnectionError):  # the consumer died of it …
        await socket.wait(timeout=5)
    assert await open_sockets(game, anna) == 0  # … and counted itself out on the way

    await play_until_turn_of(game, anna)
    sent = await database_sync_to_async(send.send_notifications)()
    turn = await database_sync_to_async(lambda: Notification.objects.get(user=anna, kind="turn"))()
    assert (sent, turn.outcome) == (1, "sent")
    assert [m.to for m in mail.outbox] == [["anna@example.org"]]


async def test_a_suspension_reaches_an_open_socket(sockets, game, players):
    socket = await joined(sockets, game, players["anna"])
    moderator = await database_sync_to_async(
        lambda: User.objects.create_superuser("mod", password="x")
    )()
    await database_sync_to_async(do_suspend)(players["anna"].pk, moderator, "abuse", 3)
    assert (await answers(socket, 1))[0]["type"] == "state"  # the game went to bernd
    await socket.send_json_to({"type": "chat", "text": "you will hear from me"})
    (error,) = await answers(socket, 1)
    assert error["code"] == "suspended"
    assert not await database_sync_to_async(ChatMessage.objects.exists)()


async def test_sync_floods_are_refused_with_when_to_try_again(sockets, game, players, monkeypatch):
    monkeypatch.setattr(consumers, "SYNCS", (0.5, 5))  # 5 at once, then one in 2 seconds
    socket = await joined(sockets, game, players["carl"])  # a watcher may sync too
    for _ in range(8):
        await socket.send_json_to({"type": "sync"})
    answered = await answers(socket, 8)
    assert [m["type"] for m in answered[:5]] == ["state"] * 5
    refused = [m for m in answered[5:] if m["type"] == "error"]
    assert len(refused) >= 2 and {m["code"] for m in refused} == {"rate_limited"}
    assert all(0 < m["retry_after"] <= 2 for m in refused)
    await asyncio.sleep(refused[-1]["retry_after"])
    await socket.send_json_to({"type": "sync"})
    assert (await answers(socket, 1))[0]["type"] == "state"


class StoppedClock:
    """A clock for a socket's frame budget that moves only when the test says."""

    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


async def test_a_frame_flood_is_answered_not_closed(sockets, game, players, monkeypatch):
    # The budget's clock stands still while the flood arrives, however slowly a busy
    # machine delivers it: exactly the burst passes, and every frame after it is refused.
    clock = StoppedClock()
    monkeypatch.setattr(sockets_lib, "FrameBudget", functools.partial(FrameBudget, clock=clock))
    socket = await joined(sockets, game, players["anna"])
    per_second, burst = sockets_lib.FRAMES
    for _ in range(burst + 5):
        await socket.send_to(text_data='{"type": "nonsense"}')
    answered = await answers(socket, burst + 5)
    assert [m["code"] for m in answered] == ["unknown_type"] * burst + ["rate_limited"] * 5
    one_frame = math.ceil(10 / per_second) / 10  # the wait for one frame, to a tenth up
    assert {m["retry_after"] for m in answered[burst:]} == {one_frame}
    assert await socket.receive_nothing()
    # A second later the budget holds a second's frames again: the socket is still open.
    clock.advance(1)
    for _ in range(per_second + 1):
        await socket.send_to(text_data='{"type": "nonsense"}')
    codes = [m["code"] for m in await answers(socket, per_second + 1)]
    assert codes == ["unknown_type"] * per_second + ["rate_limited"]


@pytest.mark.parametrize(
    ("frame", "code"),
    [
        ("[" * 5000 + "]" * 5000, "malformed_json"),
        ('{"type": "chat", "text": ' + "[" * 40 + "]" * 40 + "}", "malformed_json"),
        ('{"type": "chat", "text": "a\\u0000b"}', "bad_text"),
        ('{"type": "chat", "text": "\\ud800"}', "bad_text"),
        (
            '{"type": "command", "command": {"type": "trick", "card": "T1", "half": ["wild"]}, '
            '"expected_version": 2, "client_id": "x"}',
            "bad_command",
        ),
        (
            '{"type": "command", "command": {"type": "roll"}, "expected_version": 2, '
            '"client_id": "' + "a" * 64 + '\\n"}',
            "bad_request",
        ),
        ('{"type": "sync", "x": NaN}', "malformed_json"),
    ],
)
async def test_hostile_frames_get_errors_and_the_socket_syncs_after(
    sockets, game, players, frame, code
):
    name = await database_sync_to_async(lambda: game.to_move.username)()
    socket = await joined(sockets, game, players[name])
    await socket.send_to(text_data=frame)
    (error,) = await answers(socket, 1)
    assert error["type"] == "error" and error["code"] == code
    await socket.send_json_to({"type": "sync"})
    assert (await answers(socket, 1))[0]["type"] == "state"
    assert not await database_sync_to_async(ChatMessage.objects.exists)()


async def test_the_lobby_survives_garbage_and_still_pongs(sockets, players):
    socket = await joined(sockets, None, players["anna"], "/ws/lobby/")
    for frame in ("\x00", "[" * 3000, '{"type": ["ping"]}', '{"type": "\\ud800"}'):
        await socket.send_to(text_data=frame)
    await socket.send_to(bytes_data=b"\xff\xfe")
    codes = [m["code"] for m in await answers(socket, 5)]
    assert codes == ["malformed_json", "malformed_json", "bad_request", "unknown_type", "bad_frame"]
    await socket.send_json_to({"type": "ping"})
    assert (await answers(socket, 1))[0] == {"type": "pong"}
