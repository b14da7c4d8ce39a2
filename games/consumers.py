"""The game and lobby websockets: thin adapters between the protocol and the services.

The protocol is described in docs/protocol.md. Group messages carry only a version;
each connection builds its own viewer's JSON.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import Counter, deque

from channels.layers import InMemoryChannelLayer
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from pydantic import ValidationError

from shanghaien.lib import metrics
from shanghaien.lib.errors import NotFound, ServiceError
from shanghaien.lib.input import parse_id
from shanghaien.lib.ratelimit import FrameBudget
from shanghaien.lib.sockets import (
    NOT_AUTHENTICATED,
    NOT_FOUND,
    JsonProtocolConsumer,
    database_sync_to_async,
    leave_group,
    retry_fields,
)

from . import bot_turns, queries
from .access import access_game
from .live import broadcast
from .live.broadcast import game_group, user_group
from .live.reads import FRAMES, WATCHER
from .live.topics import TOPICS, WATCHED_MAX, topic_group
from .models import ChatMessage, Game, Invitation
from .serializers import chat_json, invitation_json
from .services import chat, commands, presence
from .socket_messages import ADAPTERS, GAME_SOCKET, LOBBY_SOCKET

logger = logging.getLogger(__name__)


def unknown_fields(error: ValidationError) -> list[str]:
    """The fields of a frame that its declaration does not know, sorted."""
    return sorted(
        str(problem["loc"][0])
        for problem in error.errors()
        if problem["type"] == "extra_forbidden" and len(problem["loc"]) == 1
    )


COMMANDS_PER_SECOND = 20
HEARTBEAT_SECONDS = 60  # how often an open game socket renews its lease (presence.SOCKET_LEASE)

# Seconds after the opponent's board opened or closed when the board looks once more at
# where the opponent is (their other sockets close a moment after the board).
PRESENCE_SECOND_LOOK = 5

# What a game socket may send besides commands (sync and chat frames cost database
# work): (frames a second, burst).
SYNCS = (1, 10)
CHATS = (1, 5)
WATCHES = (1, 10)  # a lobby socket's watch frames


class Leases:
    """The seats whose players have a game socket open in this process: one task renews
    all their leases every HEARTBEAT_SECONDS, in a few statements, rather than a task and
    a statement per socket (3,000 idle boards made 50 writes a second of their own)."""

    def __init__(self):
        self.open: Counter = Counter()  # (game id, user id) -> sockets
        self.task: asyncio.Task | None = None

    def opened(self, game_id: int, user_id: int) -> None:
        self.open[game_id, user_id] += 1
        loop = asyncio.get_running_loop()
        if self.task is None or self.task.done() or self.task.get_loop() is not loop:
            self.task = loop.create_task(self._renew())

    def closed(self, game_id: int, user_id: int) -> None:
        self.open[game_id, user_id] -= 1
        if self.open[game_id, user_id] <= 0:
            del self.open[game_id, user_id]
        if not self.open and self.task is not None:
            self.task.cancel()  # no beat from now on: a lease left behind lapses at worst
            self.task = None

    async def _renew(self):
        while self.open:
            await asyncio.sleep(HEARTBEAT_SECONDS)
            try:
                await database_sync_to_async(presence.sockets_alive)(list(self.open))
            except Exception:  # a database hiccup: the next beat tries again
                logger.warning("could not renew the socket leases", exc_info=True)


LEASES = Leases()


class GameConsumer(JsonProtocolConsumer):
    bot_watch = None  # the task that looks for a bot's moves (no shared channel layer)
    leased = False  # counted in the seat's open sockets
    seat_closed = False  # a player's board that was open has closed: its opponent is told
    seat = None  # the seat of this socket's player; None for a watcher
    opponent_id = None
    grouped = False  # in the game's group
    joined_at = 0.0  # when it joined the group (time.time(), comparable across processes)
    presence_look = None  # the task that looks at the opponent's presence once more
    counted = False  # counted in the open sockets' metric

    async def connect(self):
        self.user = self.scope["user"]
        if not self.user.is_authenticated:
            return await self.close(code=NOT_AUTHENTICATED)
        self.game_id = parse_id(self.scope["url_route"]["kwargs"]["game_id"])
        seating = await self._seating() if self.game_id else None
        if seating is None:
            return await self.close(code=NOT_FOUND)
        if not await self.take_place(self.user):
            return
        self.seat = seating.seat
        self.kind = WATCHER if self.seat is None else self.seat  # which frame this socket gets
        self.viewer_id = seating.me.pk  # whose "me" the chat lines are told from
        self.sent_version = -1
        self.syncs = FrameBudget(*SYNCS)
        self.chats = FrameBudget(*CHATS)
        self.joined_at = time.time()
        await self.channel_layer.group_add(game_group(self.game_id), self.channel_name)
        self.grouped = True
        FRAMES.join(self.game_id)
        await self.accept()
        metrics.socket_opened("game")
        self.counted = True
        if not await self.hold_token():
            return
        if self.seat is not None:
            await database_sync_to_async(presence.socket_opened)(self.game_id, self.user)
            self.leased = True
            LEASES.opened(self.game_id, self.user.pk)
            self.opponent_id = seating.players[1 - self.seat].pk
        if isinstance(self.channel_layer, InMemoryChannelLayer) and any(
            player.bot_level for player in seating.players
        ):
            # The worker's pushes cannot reach a layer in this process's memory: look
            # for the bot's moves in the database, at the pace the worker plays them.
            self.bot_watch = asyncio.create_task(self._watch_bot())
        if self.seat is not None:
            # before the first state: a board that opens after this one has heard of it
            # only from its own first state, never from a late notice
            await self.tell_presence()
        await self.send_state()

    async def tell_presence(self, closed: bool = False) -> None:
        """Tell the game's sockets that this player's board opened or closed: the
        opponent's board says whether they are here (``presence_changed``). The message
        names only the player; each socket reads what its own player may know."""
        try:
            await self.channel_layer.group_send(
                game_group(self.game_id),
                {
                    "type": "presence.changed",
                    "user": self.user.pk,
                    "at": time.time(),
                    "closed": closed,
                    # whether others may know where this player is (an arrival is then
                    # told as it is, with no read: boards reconnecting at once after a
                    # restart must not each read the database for every arrival)
                    "shown": bool(self.user.show_presence),
                },
            )
        except Exception:  # the layer is away: the board says so at its next load
            logger.warning("could not tell the game of a board opened or closed", exc_info=True)

    async def after_close(self) -> None:
        if self.seat_closed:
            await self.tell_presence(closed=True)

    async def presence_changed(self, event):
        if self.seat is None or event["user"] != self.opponent_id or not self.grouped:
            return
        if event.get("at", 0) < self.joined_at:
            # sent before this socket joined (a layer may deliver a notice to a group's
            # newcomers): what it says was true when this board loaded, nothing new
            return
        if not event.get("closed"):
            # the opponent's board just opened: here, if they let others know
            arrived = presence.here_frame if event.get("shown") else presence.nothing_frame
            await self.send_json({"type": "presence", **arrived()})
            return
        frame = await self.send_presence()
        if event.get("closed") and frame["state"] == "online":
            # The opponent's board closed and another socket of theirs (their lobby, another
            # tab) still counts: it may close a moment later, without a notice of its own.
            # One more look a little later, told only if it changed.
            if self.presence_look is not None:
                self.presence_look.cancel()
            self.presence_look = asyncio.create_task(self._look_again(frame))

    async def send_presence(self) -> dict:
        frame = await database_sync_to_async(presence.board_presence)(
            self.game_id, self.user, self.opponent_id
        )
        await self.send_json({"type": "presence", **frame})
        return frame

    async def _look_again(self, sent: dict) -> None:
        await asyncio.sleep(PRESENCE_SECOND_LOOK)
        try:
            now = await database_sync_to_async(presence.board_presence)(
                self.game_id, self.user, self.opponent_id
            )
            if now["state"] != sent["state"]:
                await self.send_json({"type": "presence", **now})
        except Exception:  # the socket closed meanwhile, or the database is away
            logger.debug("no second look at the opponent's presence", exc_info=True)

    async def _watch_bot(self):
        while True:
            await asyncio.sleep(bot_turns.tick_seconds())
            try:
                version = await database_sync_to_async(self._version)()
                if version > self.sent_version:
                    await self.send_state(force=False, version=version)
            except Exception:  # a database hiccup: the next look tries again
                logger.warning("could not look for the bot's move", exc_info=True)

    def _version(self) -> int:
        return Game.objects.filter(pk=self.game_id).values_list("version", flat=True).first() or 0

    async def disconnect(self, code):
        await self.release()

    async def release(self) -> None:
        if self.counted:
            self.counted = False
            metrics.socket_closed("game")
        bot_watch, self.bot_watch = self.bot_watch, None
        if bot_watch is not None:
            bot_watch.cancel()
        look, self.presence_look = self.presence_look, None
        if look is not None:
            look.cancel()
        if self.leased:
            self.leased = False
            self.seat_closed = True
            LEASES.closed(self.game_id, self.user.pk)
            try:
                await database_sync_to_async(presence.socket_closed)(self.game_id, self.user)
            except Exception:  # the database is away: the lease lapses by itself
                logger.warning("could not count a closed game socket", exc_info=True)
        if self.grouped:
            self.grouped = False
            FRAMES.leave(self.game_id)
            await leave_group(self.channel_layer, game_group(self.game_id), self.channel_name)

    @database_sync_to_async
    def _seating(self):
        """The game as this user sees it; None if there is no such game."""
        try:
            return access_game(self.user, self.game_id)
        except NotFound:
            return None

    async def send_state(self, force: bool = True, version: int = 0) -> None:
        """The game's state from this socket's side: read now (``force``), or the read of
        ``version`` or later that this process's sockets of the game share."""
        if force:
            read = await FRAMES.fresh(self.game_id)
        else:
            read = await FRAMES.at_least(self.game_id, version)
        if not force and read.version <= self.sent_version:
            return  # this connection has it already
        self.sent_version = read.version
        await self.send(text_data=read.frame(self.kind, keep=not force))

    async def receive_json(self, content, **kwargs):
        kind = content["type"]
        if kind not in GAME_SOCKET:
            return await self.send_error(
                "unknown_type",
                _("Unknown message type %(kind)r: command, chat or sync.") % {"kind": kind},
            )
        if kind != "sync" and not self.token_allows("play"):
            return await self.send_error(
                "insufficient_scope",
                _("This connection's token lacks the scope 'play': it may watch, not act."),
                content.get("client_id"),
            )
        if kind == "sync":
            wait = self.syncs.take()
            if wait:
                return await self.send_rate_limited(_("Too many sync requests."), wait)
            if await self.refused(content):
                return
            return await self.send_state()
        if kind == "command":
            return await self.command(content)
        wait = self.chats.take()
        if wait:
            return await self.send_rate_limited(_("Slow down: a few messages at a time."), wait)
        return await self.chat(content)

    async def refused(self, content, client_id=None) -> bool:
        """Whether the frame breaks its declaration (``socket_messages``); if so, the
        error frame that says why has been sent."""
        try:
            ADAPTERS[content["type"]].validate_python(content)
        except ValidationError as error:
            unknown = unknown_fields(error)
            if unknown:
                message = _("Unknown fields: %(fields)s.") % {"fields": ", ".join(unknown)}
                await self.send_error("bad_request", message, client_id)
            elif content["type"] == "command":
                refusal = commands.refusal(
                    content.get("command"), content.get("expected_version"), client_id
                )
                await self.send_error(refusal.code, refusal.message, client_id)
            elif "text" in content:
                return False  # a chat's text: the service says what is wrong with it
            else:
                await self.send_error("bad_request", _("A chat message is {type, text}."))
            return True
        return False

    async def chat(self, content):
        if await self.refused(content):
            return
        try:
            await database_sync_to_async(chat.do_chat)(self.game_id, self.user, content["text"])
        except ServiceError as error:
            await self.send_error(error.code, error.message, **retry_fields(error))

    @database_sync_to_async
    def _chat_json(self, message_id):
        message = ChatMessage.objects.filter(pk=message_id, hidden=False).first()
        if message is None:
            return None
        return chat_json(message, self.viewer_id)

    async def chat_message(self, event):
        FRAMES.stale(self.game_id)  # the kept read holds the chat
        message = await self._chat_json(event["id"])
        if message is not None:
            await self.send_json({"type": "chat", "message": message})

    async def chat_hidden(self, event):
        FRAMES.stale(self.game_id)
        await self.send_json({"type": "chat_hidden", "id": event["id"]})

    recent = None  # when this socket's last commands came (made on its first command)

    def _rate_limited(self) -> bool:
        if self.recent is None:
            self.recent = deque()
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
                ngettext(
                    "At most %(n)d command a second.",
                    "At most %(n)d commands a second.",
                    COMMANDS_PER_SECOND,
                )
                % {"n": COMMANDS_PER_SECOND},
                1.0,
                client_id,
            )
        if self.seat is None:
            return await self.send_error(
                "read_only", _("You are watching this game: only its players can move."), client_id
            )
        if await self.refused(content, client_id):
            return
        try:
            outcome, notices = await database_sync_to_async(broadcast.holding(commands.do_command))(
                self.game_id,
                self.user,
                content["command"],
                content["expected_version"],
                client_id,
            )
        except ServiceError as error:
            return await self.send_error(
                error.code, error.message, client_id, **retry_fields(error)
            )
        # The new version's read first, so that the group's notice finds it made.
        try:
            FRAMES.advance(self.game_id, outcome)
        except Exception:  # the sockets read the version instead: the notices go out
            logger.exception("could not keep the read of game %s", self.game_id)
        await broadcast.publish(notices)
        await self.send_json({"type": "ack", "client_id": client_id, "version": outcome.version})

    async def game_updated(self, event):
        force = bool(event.get("force"))
        if force or event["version"] > self.sent_version:
            await self.send_state(force=force, version=event["version"])


class LobbyConsumer(JsonProtocolConsumer):
    group = None
    watches = None  # the budget of its watch frames (each may read the database)
    watched = None  # the groups of the topics it watches (games.live.topics), oldest first
    counted = False  # counted in the open sockets' metric

    async def connect(self):
        self.user = self.scope["user"]
        if not self.user.is_authenticated:
            return await self.close(code=NOT_AUTHENTICATED)
        if not await self.take_place(self.user):
            return
        self.group = user_group(self.user.pk)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        metrics.socket_opened("lobby")
        self.counted = True
        if not await self.hold_token():
            return
        count, ids = await self._waiting()
        await self.send_json({"type": "hello", "your_turn": count, "waiting": ids})

    async def disconnect(self, code):
        await self.release()

    async def release(self) -> None:
        if self.counted:
            self.counted = False
            metrics.socket_closed("lobby")
        group, self.group = self.group, None
        if group is not None:
            await leave_group(self.channel_layer, group, self.channel_name)
        watched, self.watched = self.watched or [], None
        for topic in watched:
            await self._unwatch(topic)

    async def receive_json(self, content, **kwargs):
        kind = content["type"]
        if kind not in LOBBY_SOCKET:
            return await self.send_error(
                "unknown_type", _("The lobby socket takes 'ping' and 'watch'.")
            )
        try:
            ADAPTERS[kind].validate_python(content)
        except ValidationError as error:
            unknown = unknown_fields(error)
            if unknown:
                message = _("Unknown fields: %(fields)s.") % {"fields": ", ".join(unknown)}
            else:
                message = _("A watch message is {type, topic, id}, id a positive number.")
            return await self.send_error("bad_request", message)
        if kind == "watch":
            if self.watches is None:
                self.watches = FrameBudget(*WATCHES)
            wait = self.watches.take()
            if wait:
                return await self.send_rate_limited(_("Too many watch requests."), wait)
            return await self.watch(content["topic"], content["id"])
        await self.send_json({"type": "pong"})

    async def watch(self, topic: str, pk: int) -> None:
        """Join the group of a registered topic's ``pk`` (``games.live.topics``), if it
        exists and this player may see it; the oldest watched one is left past
        ``WATCHED_MAX``."""
        exists = TOPICS.get(topic)
        if exists is None:
            return await self.send_error(
                "unknown_topic", _("Nothing called %(topic)r can be watched.") % {"topic": topic}
            )
        if self.watched is None:
            self.watched = []
        group = topic_group(topic, pk)
        if group not in self.watched:
            if not await database_sync_to_async(exists)(self.user, pk):
                return await self.send_error("not_found", _("There is no such thing to watch."))
            await self.channel_layer.group_add(group, self.channel_name)
            self.watched.append(group)
            while len(self.watched) > WATCHED_MAX:
                await self._unwatch(self.watched.pop(0))
        await self.send_json({"type": "watching", "topic": topic, "id": pk})

    async def _unwatch(self, group: str) -> None:
        await leave_group(self.channel_layer, group, self.channel_name)

    async def topic_changed(self, event):
        if self.watched and topic_group(event["topic"], event["id"]) in self.watched:
            await self.send_json(
                {
                    "type": "changed",
                    "topic": event["topic"],
                    "id": event["id"],
                    "version": event["version"],
                }
            )

    @database_sync_to_async
    def _waiting(self) -> tuple[int, list[int]]:
        """How many games wait for the player's move, and their ids (oldest turn first,
        at most ``queries.WAITING_IDS``): one read of the index when fewer wait."""
        ids = queries.waiting_ids(self.user)
        count = len(ids) if len(ids) < queries.WAITING_IDS else queries.waiting_count(self.user)
        return count, ids

    @database_sync_to_async
    def _to_move(self, game_id) -> bool:
        return Game.objects.filter(pk=game_id, to_move=self.user).exists()

    async def lobby_games_changed(self, event):
        game_id, (waiting, ids) = event["game"], await self._waiting()
        if "to_move" in event:  # said by the move itself: no need to ask the database
            mine = event["to_move"] == self.user.pk
        else:
            mine = await self._to_move(game_id)
        counts = {"game": game_id, "your_turn": waiting, "waiting": ids}
        if mine:
            await self.send_json({"type": "your_turn", **counts})
        await self.send_json({"type": "games_changed", **counts})

    @database_sync_to_async
    def _invitation(self, pk):
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
