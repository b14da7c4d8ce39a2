"""The game and lobby websockets: thin adapters between the protocol and games.services.

The protocol is described in docs/protocol.md. Group messages carry only a version;
each connection builds its own viewer's JSON.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections import deque

from channels.db import DatabaseSyncToAsync
from channels.exceptions import StopConsumer
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.utils.translation import gettext as _

from shanghaien.lib.input import parse_id, parse_json
from shanghaien.lib.ratelimit import FrameBudget

from . import services
from .broadcast import game_group, user_group
from .errors import BadRequest, ServiceError
from .models import Game
from .serializers import chat_json, game_json, invitation_json

MAX_FRAME = 16 * 1024
logger = logging.getLogger(__name__)


def database_sync_to_async(func):
    """Database work in the thread pool, not on Channels' one shared sync thread.

    Channels runs every thread-sensitive call of a process on a single thread, which
    queues all sockets' database work behind each other (bench/load.py showed it). Each
    call here is a complete unit (the services open and commit their own transactions),
    so it may run on any thread; connections are closed around it as Channels does, which
    is why the consumers need no ``aclose_old_connections`` of their own.
    """
    return DatabaseSyncToAsync(func, thread_sensitive=False)


COMMANDS_PER_SECOND = 20
HEARTBEAT_SECONDS = 60  # how often an open game socket renews its lease (services.SOCKET_LEASE)

# What one socket may send besides commands (each frame costs a parse; sync and chat
# frames also cost database work): (frames a second, burst).
FRAMES = (20, 60)
SYNCS = (1, 10)
CHATS = (1, 5)

# Close codes sent before accepting (the client sees a refused handshake).
NOT_AUTHENTICATED = 4401
NOT_FOUND = 4404


class JsonProtocolConsumer(AsyncJsonWebsocketConsumer):
    """Checks every incoming frame: text, at most 16 KiB, a JSON object with a type.

    Nothing a client sends closes its socket: a refused frame gets an ``error`` and a
    handler that fails gets ``server_error``. Whatever ends the connection (the client,
    a crash, a lost channel layer), ``release`` runs once, in ``finally``.
    """

    async def __call__(self, scope, receive, send):
        self.frames = FrameBudget(*FRAMES)
        try:
            await super().__call__(scope, receive, send)
        finally:
            await self.release()

    async def release(self) -> None:
        """Give back what the connection holds. Safe to call more than once."""

    async def dispatch(self, message):
        try:
            await super().dispatch(message)
        except StopConsumer:
            raise
        except Exception:
            logger.exception("socket handler for %s failed", message.get("type"))
            if message.get("type") == "websocket.connect":
                await self.close(code=1011)  # the handshake could not be completed

    async def receive(self, text_data=None, bytes_data=None, **kwargs):
        wait = self.frames.take()
        if wait:
            return await self.send_rate_limited(_("Too many messages on this connection."), wait)
        if text_data is None:
            return await self.send_error("bad_frame", "Send text frames of JSON.")
        if len(text_data) > MAX_FRAME or len(text_data.encode(errors="replace")) > MAX_FRAME:
            return await self.send_error("too_large", f"Frames are at most {MAX_FRAME} bytes.")
        try:
            content = parse_json(text_data)
        except ServiceError as error:
            return await self.send_error(error.code, "The frame is not valid JSON.")
        if not isinstance(content, dict) or not isinstance(content.get("type"), str):
            return await self.send_error("bad_request", "A message is an object with a 'type'.")
        try:
            await self.receive_json(content)
        except Exception:
            logger.exception("socket message %r failed", content["type"][:40])
            await self.send_error(
                "server_error",
                _("Something went wrong on the server. Send sync to see where the game stands."),
                content.get("client_id"),
            )

    async def send_error(self, code: str, message: str, client_id=None, **more) -> None:
        error = {"type": "error", "code": code, "message": message, **more}
        if isinstance(client_id, str):
            error["client_id"] = client_id
        await self.send_json(error)

    async def send_rate_limited(self, message: str, wait: float, client_id=None) -> None:
        retry_after = math.ceil(wait * 10) / 10  # rounded up: never too early
        await self.send_error("rate_limited", message, client_id, retry_after=retry_after)


class GameConsumer(JsonProtocolConsumer):
    heartbeat = None  # the lease renewal task of a player's socket
    leased = False  # counted in the seat's open sockets
    grouped = False  # in the game's group

    async def connect(self):
        self.user = self.scope["user"]
        if not self.user.is_authenticated:
            return await self.close(code=NOT_AUTHENTICATED)
        self.game_id = parse_id(self.scope["url_route"]["kwargs"]["game_id"])
        self.seat = await self._seat() if self.game_id else False
        if self.seat is False:
            return await self.close(code=NOT_FOUND)
        self.sent_version = -1
        self.recent = deque()
        self.syncs = FrameBudget(*SYNCS)
        self.chats = FrameBudget(*CHATS)
        await self.channel_layer.group_add(game_group(self.game_id), self.channel_name)
        self.grouped = True
        await self.accept()
        if self.seat is not None:
            self.heartbeat = asyncio.create_task(self._renew_lease())
            await database_sync_to_async(services.socket_opened)(self.game_id, self.user)
            self.leased = True
        await self.send_state()

    async def _renew_lease(self):
        """While the socket is open, tell the database now and then that it still is."""
        while True:
            await asyncio.sleep(HEARTBEAT_SECONDS)
            try:
                await database_sync_to_async(services.socket_alive)(self.game_id, self.user)
            except Exception:  # a database hiccup: the next beat tries again
                logger.warning("could not renew the socket lease", exc_info=True)

    async def disconnect(self, code):
        await self.release()

    async def release(self) -> None:
        heartbeat, self.heartbeat = self.heartbeat, None
        if heartbeat is not None:
            heartbeat.cancel()  # no beat renews the lease from now on: it lapses at worst
        if self.leased:
            self.leased = False
            try:
                await database_sync_to_async(services.socket_closed)(self.game_id, self.user)
            except Exception:  # the database is away: the lease lapses by itself
                logger.warning("could not count a closed game socket", exc_info=True)
        if self.grouped:
            self.grouped = False
            try:
                await self.channel_layer.group_discard(game_group(self.game_id), self.channel_name)
            except Exception:  # the layer is away; its group membership expires
                logger.warning("could not leave the game group", exc_info=True)

    @database_sync_to_async
    def _seat(self):
        """The user's seat, None for a watcher, False if there is no such game."""
        game = Game.objects.filter(pk=self.game_id).prefetch_related("seats").first()
        return False if game is None else game.seat_of(self.user)

    @database_sync_to_async
    def _game_json(self):
        return game_json(services.get_game(self.game_id), self.user)

    async def send_state(self, force: bool = True) -> None:
        game = await self._game_json()
        if not force and game["version"] <= self.sent_version:
            return  # this connection has it already
        self.sent_version = game["version"]
        await self.send_json({"type": "state", "version": game["version"], "game": game})

    async def receive_json(self, content, **kwargs):
        kind = content["type"]
        if kind == "sync":
            wait = self.syncs.take()
            if wait:
                return await self.send_rate_limited(_("Too many sync requests."), wait)
            return await self.send_state()
        if kind == "command":
            return await self.command(content)
        if kind == "chat":
            wait = self.chats.take()
            if wait:
                return await self.send_rate_limited(_("Slow down: a few messages at a time."), wait)
            return await self.chat(content)
        await self.send_error(
            "unknown_type", f"Unknown message type {kind!r}: command, chat or sync."
        )

    async def chat(self, content):
        if set(content) != {"type", "text"}:
            return await self.send_error("bad_request", "A chat message is {type, text}.")
        try:
            await database_sync_to_async(services.do_chat)(self.game_id, self.user, content["text"])
        except ServiceError as error:
            await self.send_error(error.code, error.message, **_retry(error))

    @database_sync_to_async
    def _chat_json(self, message_id):
        from .models import ChatMessage

        message = ChatMessage.objects.filter(pk=message_id, hidden=False).first()
        if message is None:
            return None
        game = services.get_game(self.game_id)
        seat0 = game.seats.get(seat=0).user_id
        return chat_json(message, self.user.pk if self.seat is not None else seat0)

    async def chat_message(self, event):
        message = await self._chat_json(event["id"])
        if message is not None:
            await self.send_json({"type": "chat", "message": message})

    async def chat_hidden(self, event):
        await self.send_json({"type": "chat_hidden", "id": event["id"]})

    def _rate_limited(self) -> bool:
        now = time.monotonic()
        while self.recent and now - self.recent[0] > 1.0:
            self.recent.popleft()
        if len(self.recent) >= COMMANDS_PER_SECOND:
            return True
        self.recent.append(now)
        return False

    async def command(self, content):
        client_id = content.get("client_id")
        if self._rate_limited():
            return await self.send_rate_limited(
                f"At most {COMMANDS_PER_SECOND} commands a second.", 1.0, client_id
            )
        if self.seat is None:
            return await self.send_error(
                "read_only", "You are watching this game: only its players can move.", client_id
            )
        unknown = set(content) - {"type", "command", "expected_version", "client_id"}
        try:
            if unknown:
                raise BadRequest("bad_request", f"Unknown fields: {', '.join(sorted(unknown))}.")
            outcome = await database_sync_to_async(services.do_command)(
                self.game_id,
                self.user,
                content.get("command"),
                content.get("expected_version"),
                client_id,
            )
        except ServiceError as error:
            return await self.send_error(error.code, error.message, client_id, **_retry(error))
        await self.send_json({"type": "ack", "client_id": client_id, "version": outcome.version})

    async def game_updated(self, event):
        if event.get("force") or event["version"] > self.sent_version:
            await self.send_state(force=bool(event.get("force")))


class LobbyConsumer(JsonProtocolConsumer):
    group = None

    async def connect(self):
        self.user = self.scope["user"]
        if not self.user.is_authenticated:
            return await self.close(code=NOT_AUTHENTICATED)
        self.group = user_group(self.user.pk)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        await self.send_json({"type": "hello", "your_turn": await self._waiting()})

    async def disconnect(self, code):
        await self.release()

    async def release(self) -> None:
        group, self.group = self.group, None
        if group is not None:
            try:
                await self.channel_layer.group_discard(group, self.channel_name)
            except Exception:  # the layer is away; its group membership expires
                logger.warning("could not leave the lobby group", exc_info=True)

    async def receive_json(self, content, **kwargs):
        if content["type"] == "ping":
            return await self.send_json({"type": "pong"})
        await self.send_error("unknown_type", "The lobby socket only listens; send 'ping'.")

    @database_sync_to_async
    def _waiting(self) -> int:
        return Game.objects.filter(status=Game.Status.ACTIVE, to_move=self.user).count()

    @database_sync_to_async
    def _to_move(self, game_id) -> bool:
        return Game.objects.filter(pk=game_id, to_move=self.user).exists()

    async def lobby_games_changed(self, event):
        game_id, waiting = event["game"], await self._waiting()
        if await self._to_move(game_id):
            await self.send_json({"type": "your_turn", "game": game_id, "your_turn": waiting})
        await self.send_json({"type": "games_changed", "game": game_id, "your_turn": waiting})

    @database_sync_to_async
    def _invitation(self, pk):
        from .models import Invitation

        invitation = Invitation.objects.select_related("from_user", "to_user").get(pk=pk)
        return invitation_json(invitation)

    async def lobby_invitation(self, event):
        await self.send_json(
            {
                "type": "invitation",
                "event": event["event"],
                "invitation": await self._invitation(event["invitation"]),
            }
        )


def _retry(error: ServiceError) -> dict:
    """The ``retry_after`` of a rate-limit refusal, for its error frame."""
    retry_after = getattr(error, "retry_after", None)
    return {} if retry_after is None else {"retry_after": retry_after}
