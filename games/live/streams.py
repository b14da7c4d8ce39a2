"""The HTTP streams (docs/api.md, "Streams"): ``application/x-ndjson``, one JSON object a
line, for clients that hold no websocket.

- ``AccountStream`` (``GET /api/stream/``): the account's events. On opening a
  ``game_start`` line for each of its running games (and ``your_turn`` after it where the
  account is to move), an ``invitation`` line for each open invitation addressed to it;
  then, as things happen, ``invitation``, ``game_start``, ``your_turn`` and ``game_end``.
  Built on the lobby's notices (``lobby.games_changed``, ``lobby.invitation`` to the
  account's group ``user.<id>``), each read in one small query.
- ``GameStream`` (``GET /api/games/{id}/stream/``): what the game socket sends, the
  ``state`` frames of ``reads.FRAMES`` from the viewer's side (a player's own, the
  watcher frame for a watcher) and the chat lines; each version once, in order, never
  one at or below the last sent; the stream ends after the state of a game that is over.

Both join their groups before their first read, so nothing that happens between opening
and listening is lost. Both count among the account's socket places
(``shanghaien.lib.sockets.SLOTS``), send an empty line after ``STREAM_KEEPALIVE_SECONDS``
without one, and, opened with a token, join its group (``accounts.tokens.token_group``)
and end with an ``error`` line (``token_revoked`` / ``token_expired``) when it is revoked
or expires. A client that goes away ends its stream: Django's ASGI handler cancels the
response on ``http.disconnect``, and the stream leaves its groups and gives its place
back in ``finally``.

An idle stream holds its request, one task and its channel in the layer; nothing more.
Under WSGI (no long-lived connection: the test client, schemathesis) a stream sends its
opening lines and ends.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import weakref

import orjson
from asgiref.sync import async_to_sync
from channels.layers import InMemoryChannelLayer, get_channel_layer
from django.conf import settings
from django.db import connections
from django.http import StreamingHttpResponse
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from accounts.tokens import token_alive, token_group
from shanghaien.lib.errors import RateLimited
from shanghaien.lib.sockets import (
    SLOTS,
    database_executor,
    database_sync_to_async,
    give_back,
    leave_group,
    tell_seen,
)

from .. import bot_turns, queries
from ..models import ChatMessage, Game, Invitation
from ..serializers import chat_json, game_summary, invitation_json
from .broadcast import game_group, user_group
from .reads import FRAMES, WATCHER

logger = logging.getLogger(__name__)

CONTENT_TYPE = "application/x-ndjson"
KEEPALIVE = b"\n"


def keepalive_seconds() -> float:
    return float(settings.STREAM_KEEPALIVE_SECONDS)


def line(obj) -> bytes:
    return orjson.dumps(obj) + b"\n"


class TooManyStreams(RateLimited):
    """The account holds ``SOCKETS_PER_ACCOUNT`` places already (streams and sockets)."""

    def __init__(self, message: str, retry_after: float):
        super().__init__(message, retry_after)
        self.code = "too_many_streams"


def take_place(user_id: int) -> str | None:
    """A place among the account's sockets for a stream (its key); ``TooManyStreams``
    when every one is taken. Blocking (the cache): called from the view's thread. Should
    the cache fail, the stream opens uncounted, as a socket does."""
    try:
        place = SLOTS.take(user_id)
    except Exception:
        logger.warning("could not count an opened stream", exc_info=True)
        return None
    if place is None:
        message = _(
            "You have %(n)d connections open (streams, sockets, windows): close some of "
            "them, then open the stream again."
        ) % {"n": settings.SOCKETS_PER_ACCOUNT}
        raise TooManyStreams(message, 60)
    return place


def hand_back_connections() -> None:
    """The request's database connections, handed back before its stream begins: Django
    closes them only when the response ends (``request_finished``), and each open stream
    would hold one of the pool's few for its whole life. The stream's own reads take one
    for each read (``database_sync_to_async``)."""
    for connection in connections.all(initialized_only=True):
        connection.close()


def release_lost(unreleased: list) -> None:
    """A stream was dropped with its place still taken: give it back on a database
    thread (whatever thread collects the stream must not wait on the cache)."""
    place = unreleased[0]
    if place is not None:
        unreleased[0] = None
        # RuntimeError: the process is shutting down, and the lease lapses by itself
        with contextlib.suppress(RuntimeError):
            database_executor().submit(SLOTS.give_back, place)


class Stream:
    """One open stream: its channel in the layer, its groups, its place; ``lines()``
    yields what it sends. Subclasses say what it opens with and what each notice means."""

    poll_seconds: float | None = None  # how often ``poll`` runs (None: never)

    def __init__(self, user, token, place: str | None, language: str, live: bool = True):
        self.user = user
        self.token = token  # accounts.tokens.TokenUse, or None for a session
        self.place = place
        self.language = language
        self.live = live
        self.layer = None
        self.channel = None
        self.groups: list[str] = []
        self.closed = False
        # The place, for a stream dropped without running (its client went away between
        # the view and the first line: Django cancels the response and never closes it).
        self.unreleased = [place]
        weakref.finalize(self, release_lost, self.unreleased)

    def response(self) -> StreamingHttpResponse:
        # Under WSGI the opening lines are read here, at once: Django would otherwise
        # consume the asynchronous iterator itself, with a warning.
        if self.live:
            hand_back_connections()
            lines = self.lines()
        else:
            lines = iter(async_to_sync(self._opening_lines)())
        response = ClosingStreamingResponse(self, lines, content_type=CONTENT_TYPE)
        response["Cache-Control"] = "no-store"
        response["X-Accel-Buffering"] = "no"
        return response

    def own_groups(self) -> list[str]:
        return []

    async def opening(self):
        """The lines sent as the stream opens, after its groups are joined."""
        return
        yield

    async def handle(self, message: dict):
        """The lines a notice of the stream's groups makes."""
        return
        yield

    async def poll(self):
        """The lines of a look at the database, every ``poll_seconds``."""
        return
        yield

    async def _opening_lines(self) -> list[bytes]:
        return [text async for text in self.lines()]

    revoked_before = False  # the token was revoked while the stream was being opened

    async def lines(self):
        try:
            if self.live:
                await self._join()
                if self.revoked_before:
                    expires = self.token.expires_at
                    past = expires is not None and expires <= timezone.now()
                    yield self.token_error("expired" if past else "revoked")
                    return
            told = False
            async for text in self.opening():
                told = True
                yield text
            if not told and self.live:
                # Daphne sends the response's head with its first bytes: a client sees
                # its stream open at once, not at the first keep-alive.
                yield KEEPALIVE
            if not self.live or self.closed:
                return
            async for text in self._listen():
                yield text
        finally:
            await self.close()

    async def _join(self) -> None:
        if self.place is not None:
            SLOTS.keep_renewing()
            await tell_seen({self.user.pk})
        self.layer = get_channel_layer()
        self.channel = await self.layer.new_channel()
        groups = self.own_groups()
        if self.token is not None:
            groups.append(token_group(self.token.token_id))
        for group in groups:
            await self.layer.group_add(group, self.channel)
            self.groups.append(group)
        if self.token is not None and not await database_sync_to_async(token_alive)(
            self.token.token_id
        ):
            # revoked between the request's check and joining the token's group: its
            # notice went out before this stream could hear it
            self.revoked_before = True

    async def _listen(self):
        expires = self.token.expires_at if self.token is not None else None
        keepalive = keepalive_seconds()
        quiet_since = time.monotonic()
        polled = time.monotonic()
        receiving = None
        try:
            while not self.closed:
                now = time.monotonic()
                wake = quiet_since + keepalive
                if self.poll_seconds is not None:
                    wake = min(wake, polled + self.poll_seconds)
                if expires is not None:
                    left = (expires - timezone.now()).total_seconds()
                    if left <= 0:
                        yield self.token_error("expired")
                        return
                    wake = min(wake, now + left)
                if receiving is None:
                    receiving = asyncio.ensure_future(self.layer.receive(self.channel))
                done, _pending = await asyncio.wait({receiving}, timeout=max(0.0, wake - now))
                sent = False
                if done:
                    message, receiving = receiving.result(), None
                    if message.get("type") == "token.closed":
                        yield self.token_error(message.get("reason"))
                        return
                    try:
                        async for text in self.handle(message):
                            sent = True
                            yield text
                    except Exception:  # a database hiccup: the next notice reads again
                        logger.warning("a stream's notice failed", exc_info=True)
                if self.poll_seconds is not None and time.monotonic() >= polled + self.poll_seconds:
                    polled = time.monotonic()
                    try:
                        async for text in self.poll():
                            sent = True
                            yield text
                    except Exception:  # a database hiccup: the next look tries again
                        logger.warning("a stream's look at the database failed", exc_info=True)
                if sent:
                    quiet_since = time.monotonic()
                elif time.monotonic() >= quiet_since + keepalive:
                    quiet_since = time.monotonic()
                    yield KEEPALIVE
        finally:
            if receiving is not None:
                receiving.cancel()

    def token_error(self, reason) -> bytes:
        with translation.override(self.language):
            if reason == "expired":
                code, message = "token_expired", _("This API token has expired.")
            else:
                code, message = "token_revoked", _("This API token was revoked.")
        return line({"type": "error", "code": code, "message": message})

    async def close(self) -> None:
        """Leave the groups and give the place back; once, whatever ended the stream."""
        if self.closed and not self.groups and self.place is None:
            return
        self.closed = True
        groups, self.groups = self.groups, []
        for group in groups:
            await leave_group(self.layer, group, self.channel)
        place, self.place = self.place, None
        self.unreleased[0] = None
        await give_back(place)
        self.after_close()

    def after_close(self) -> None:
        """Once, as the stream closes (synchronous: also from ``close_unstarted``)."""

    def close_unstarted(self) -> None:
        """The response was never streamed (the client went away first): give the place
        back from the handler's thread."""
        if self.closed or self.groups:
            return
        self.closed = True
        place, self.place = self.place, None
        self.unreleased[0] = None
        if place is not None:
            try:
                SLOTS.give_back(place)
            except Exception:
                logger.warning("could not count a closed stream", exc_info=True)
        self.after_close()


class ClosingStreamingResponse(StreamingHttpResponse):
    """A stream's response: closing it (the handler does, once it is sent) also gives
    back a place its stream took but never used."""

    def __init__(self, stream: Stream, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.stream = stream

    def close(self):
        try:
            self.stream.close_unstarted()
        finally:
            super().close()


# -- the account's stream -------------------------------------------------------------------


class AccountStream(Stream):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.games: dict[int, tuple[int, bool, bool]] = {}  # id -> (version, mine, vs a bot)
        # The invitations the opening lines told of: their notice, if it came after the
        # stream joined its group and before it read, is not told again.
        self.told: set[int] = set()
        if isinstance(get_channel_layer(), InMemoryChannelLayer):
            # The worker's notices of the computer opponents' moves cannot reach a layer
            # in this process's memory: look for them in the database, at its pace.
            self.poll_seconds = bot_turns.tick_seconds()

    def own_groups(self) -> list[str]:
        return [user_group(self.user.pk)]

    async def opening(self):
        lines, invitations = await database_sync_to_async(self._opening)()
        for text in lines:
            yield text
        for invitation in invitations:
            self.told.add(invitation["id"])
            yield line({"type": "invitation", "event": "received", "invitation": invitation})

    def _opening(self):
        received = Invitation.objects.filter(
            status=Invitation.Status.OPEN, to_user=self.user
        ).select_related("from_user", "to_user")
        return self._look(), [invitation_json(i) for i in received.order_by("created_at")]

    def _look(self, named: int | None = None) -> list[bytes]:
        """Lines for what changed in the account's games since the last look: games
        begun, turns come, games over (``named``: the game a notice named, read even
        if no longer running)."""
        user = self.user
        active = list(queries.games_for(user))
        lines = []
        seen = set()
        for game in active:
            seen.add(game.pk)
            summary = game_summary(game, user)
            known = self.games.get(game.pk)
            mine = summary["your_turn"]
            if known is None:
                lines.append(line(start_line(summary)))
            if mine and (known is None or not known[1] or game.version > known[0]):
                lines.append(line(your_turn_line(game)))
            self.games[game.pk] = (game.version, mine, bool(summary["opponent_bot"]))
        gone = [pk for pk in self.games if pk not in seen]
        if gone:
            ended = queries.with_players(list(Game.objects.filter(pk__in=gone)))
            for game in ended:
                if game.status != Game.Status.ACTIVE:
                    lines.append(line(end_line(game_summary(game, user))))
                    del self.games[game.pk]
        return lines

    def _changed(self, game_id: int) -> list[bytes]:
        """A notice named one game: a single small read when it is a known game still
        running, else a whole look."""
        known = self.games.get(game_id)
        if known is not None:
            row = Game.objects.filter(pk=game_id).values("status", "version", "to_move_id").first()
            if row is not None and row["status"] == Game.Status.ACTIVE:
                mine = row["to_move_id"] == self.user.pk
                lines = []
                if mine and (row["version"] > known[0] or not known[1]):
                    lines.append(line({"type": "your_turn", "game": game_id, **row_version(row)}))
                self.games[game_id] = (max(row["version"], known[0]), mine, known[2])
                return lines
        return self._look(game_id)

    async def handle(self, message: dict):
        kind = message.get("type")
        with translation.override(self.language):
            if kind == "lobby.games_changed":
                for text in await database_sync_to_async(self._changed)(message["game"]):
                    yield text
            elif kind == "lobby.invitation":
                if message["event"] == "received" and message["invitation"] in self.told:
                    self.told.discard(message["invitation"])
                    return
                invitation = await database_sync_to_async(_invitation)(message["invitation"])
                if invitation is not None:
                    yield line(
                        {"type": "invitation", "event": message["event"], "invitation": invitation}
                    )

    async def poll(self):
        if any(vs_bot for _v, _mine, vs_bot in self.games.values()):
            with translation.override(self.language):
                for text in await database_sync_to_async(self._look)():
                    yield text


def row_version(row) -> dict:
    return {"version": row["version"]}


def start_line(summary: dict) -> dict:
    return {
        "type": "game_start",
        "game": summary["id"],
        "version": summary["version"],
        "opponent": summary["opponent"],
        "opponent_bot": summary["opponent_bot"],
        "your_turn": summary["your_turn"],
        "rated": summary["rated"],
        "days_per_move": summary["days_per_move"],
    }


def your_turn_line(game: Game) -> dict:
    return {"type": "your_turn", "game": game.pk, "version": game.version}


def end_line(summary: dict) -> dict:
    return {
        "type": "game_end",
        "game": summary["id"],
        "version": summary["version"],
        "status": summary["status"],
        "result": summary["result"],
        "outcome": summary["outcome"],
    }


def _invitation(pk: int) -> dict | None:
    invitation = Invitation.objects.select_related("from_user", "to_user").filter(pk=pk).first()
    return None if invitation is None else invitation_json(invitation)


# -- one game's stream ----------------------------------------------------------------------


class GameStream(Stream):
    def __init__(self, seating, since: int | None, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.game_id = seating.game.pk
        self.kind = WATCHER if seating.seat is None else seating.seat
        self.viewer_id = seating.me.pk
        self.sent_version = -1 if since is None else since
        self.joined = False
        if isinstance(get_channel_layer(), InMemoryChannelLayer) and any(
            player.bot_level for player in seating.players
        ):
            # As the game socket does: the worker's notices cannot reach this process.
            self.poll_seconds = bot_turns.tick_seconds()

    def own_groups(self) -> list[str]:
        if self.live:
            FRAMES.join(self.game_id)  # rule 1 of reads.py: a stream keeps the read too
            self.joined = True
        return [game_group(self.game_id)]

    def after_close(self) -> None:
        if self.joined:
            self.joined = False
            FRAMES.leave(self.game_id)

    async def opening(self):
        read = await FRAMES.fresh(self.game_id)
        text = self._state(read, keep=False)
        if text is not None:
            yield text

    def _state(self, read, keep: bool) -> bytes | None:
        """The state line of ``read`` if it is newer than the last sent; the stream ends
        after the state of a game that is over."""
        over = read.seating.game.status != Game.Status.ACTIVE
        if read.version <= self.sent_version:
            if over:
                self.closed = True
            return None
        self.sent_version = read.version
        if over:
            self.closed = True
        with translation.override(self.language):
            return read.frame(self.kind, keep=keep).encode() + b"\n"

    async def handle(self, message: dict):
        kind = message.get("type")
        if kind == "game.updated":
            if message["version"] > self.sent_version:
                read = await FRAMES.at_least(self.game_id, message["version"])
                text = self._state(read, keep=True)
                if text is not None:
                    yield text
        elif kind == "chat.message":
            FRAMES.stale(self.game_id)  # the kept read holds the chat
            chat = await database_sync_to_async(self._chat_json)(message["id"])
            if chat is not None:
                yield line({"type": "chat", "message": chat})
        elif kind == "chat.hidden":
            FRAMES.stale(self.game_id)
            yield line({"type": "chat_hidden", "id": message["id"]})

    def _chat_json(self, message_id):
        message = ChatMessage.objects.filter(pk=message_id, hidden=False).first()
        if message is None:
            return None
        with translation.override(self.language):
            return chat_json(message, self.viewer_id)

    async def poll(self):
        version = await database_sync_to_async(self._version)()
        if version > self.sent_version:
            text = self._state(await FRAMES.at_least(self.game_id, version), keep=True)
            if text is not None:
                yield text

    def _version(self) -> int:
        return Game.objects.filter(pk=self.game_id).values_list("version", flat=True).first() or 0
