"""A websocket that speaks JSON and survives whatever its client sends (docs/protocol.md)."""

from __future__ import annotations

import asyncio
import logging
import math
import weakref
from concurrent.futures import ThreadPoolExecutor
from importlib import import_module
from types import SimpleNamespace

from channels.consumer import get_handler_name
from channels.db import DatabaseSyncToAsync
from channels.exceptions import StopConsumer
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.conf import settings
from django.contrib import auth
from django.contrib.auth.models import AnonymousUser
from django.http.cookie import parse_cookie
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import trans_real

from .errors import ServiceError
from .input import parse_json
from .ratelimit import FrameBudget

MAX_FRAME = 16 * 1024
# What one socket may send (each frame costs a parse): (frames a second, burst).
FRAMES = (20, 60)

# Close codes sent before accepting (the client sees a refused handshake).
NOT_AUTHENTICATED = 4401
NOT_FOUND = 4404

logger = logging.getLogger(__name__)


_executor: ThreadPoolExecutor | None = None


def database_executor() -> ThreadPoolExecutor:
    """The threads the sockets' database work runs on: ``settings.DATABASE_THREADS`` of
    them, the number the connection pool is sized for."""
    global _executor
    if _executor is None:
        _executor = ThreadPoolExecutor(settings.DATABASE_THREADS, thread_name_prefix="database")
    return _executor


def database_sync_to_async(func):
    """Database work on the database threads, not on Channels' one shared sync thread.

    Channels runs every thread-sensitive call of a process on a single thread, which
    queues all sockets' database work behind each other (bench/load.py showed it). Each
    call here is a complete unit (the services open and commit their own transactions),
    so it may run on any thread; connections are handed back around it as Channels does
    (to the pool, with PostgreSQL), which is why the consumers need no
    ``aclose_old_connections`` hop of their own before each message (``dispatch``).
    """
    return DatabaseSyncToAsync(func, thread_sensitive=False, executor=database_executor())


class JsonProtocolConsumer(AsyncJsonWebsocketConsumer):
    """Checks every incoming frame: text, at most 16 KiB, a JSON object with a type.

    Nothing a client sends closes its socket: a refused frame gets an ``error`` and a
    handler that fails gets ``server_error``. Whatever ends the connection (the client,
    a crash, a lost channel layer), ``release`` runs once, in ``finally``.
    """

    async def __call__(self, scope, receive, send):
        self.frames = FrameBudget(*FRAMES)
        self.language = socket_language(scope)
        try:
            await super().__call__(scope, receive, send)
        finally:
            await self.release()

    async def release(self) -> None:
        """Give back what the connection holds. Safe to call more than once."""

    async def dispatch(self, message):
        # Channels' dispatch first hops to its shared sync thread to close stale database
        # connections, before every message; here every database call does that itself.
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        try:
            with translation.override(self.language):  # errors and frames in its language
                await handler(message)
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
            return await self.send_error("bad_frame", _("Send text frames of JSON."))
        if len(text_data) > MAX_FRAME or len(text_data.encode(errors="replace")) > MAX_FRAME:
            message = _("Frames are at most %(n)d bytes.") % {"n": MAX_FRAME}
            return await self.send_error("too_large", message)
        try:
            content = parse_json(text_data)
        except ServiceError as error:
            return await self.send_error(error.code, _("The frame is not valid JSON."))
        if not isinstance(content, dict) or not isinstance(content.get("type"), str):
            return await self.send_error("bad_request", _("A message is an object with a 'type'."))
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


class SessionUser:
    """The socket's user, from its session cookie, read once as it connects: what
    Channels' ``AuthMiddlewareStack`` gives, without what that keeps for the socket's
    whole life (three more middleware frames, each with its copy of the scope, the loaded
    session and a lazy wrapper around the user: some KiB a socket, and 3,000 idle boards
    hold a process's memory). The scope gets ``cookies`` and ``user``; no ``session``
    (nothing on a socket writes to it). The read runs on the database threads, not on
    Channels' one shared thread, where a restart's reconnecting boards queued.
    """

    def __init__(self, inner):
        self.inner = inner

    async def __call__(self, scope, receive, send):
        gate = handshake_gate()
        await gate.acquire()
        waiting = True

        def done() -> None:
            nonlocal waiting
            if waiting:
                waiting = False
                gate.release()

        async def sending(message):
            if message["type"] in ("websocket.accept", "websocket.close"):
                done()  # the handshake is over: the next one may start
            await send(message)

        try:
            cookies = {}
            for name, value in scope.get("headers") or ():
                if name == b"cookie":
                    cookies = parse_cookie(value.decode("latin-1"))
                    break
            key = cookies.get(settings.SESSION_COOKIE_NAME)
            user = await database_sync_to_async(session_user)(key)
            return await self.inner(dict(scope, cookies=cookies, user=user), receive, sending)
        finally:
            done()


_gates: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def handshake_gate() -> asyncio.Semaphore:
    """How many handshakes of this process's event loop run at once: two for each
    database thread. A restart brings every board back at once; were all their
    handshakes to advance together, each a step at a time through the database threads,
    every one would finish only when all the work was done, after Daphne's handshake
    timeout. In turn, the first come are served first and the rest wait in line."""
    loop = asyncio.get_running_loop()
    gate = _gates.get(loop)
    if gate is None:
        gate = _gates[loop] = asyncio.Semaphore(2 * settings.DATABASE_THREADS)
    return gate


def session_user(session_key: str | None):
    """The user signed in with this session (AnonymousUser if none), checked as a
    request's is (``django.contrib.auth.get_user``: the session's hash, the backend)."""
    if not session_key:
        return AnonymousUser()
    store = import_module(settings.SESSION_ENGINE).SessionStore(session_key)
    return auth.get_user(SimpleNamespace(session=store))


def socket_language(scope) -> str:
    """The language of a socket's texts, chosen as a page's is: the player's own, else
    the chooser's cookie, else the browser's Accept-Language, else the site's default."""
    user = scope.get("user")
    if user is not None and getattr(user, "is_authenticated", False) and user.language:
        return user.language
    cookie = (scope.get("cookies") or {}).get(settings.LANGUAGE_COOKIE_NAME)
    if cookie:
        try:
            return translation.get_supported_language_variant(cookie)
        except LookupError:
            pass
    headers = dict(scope.get("headers") or [])
    accept = headers.get(b"accept-language", b"").decode("latin-1")
    for code, _quality in trans_real.parse_accept_lang_header(accept):
        if code == "*":
            break
        try:
            return translation.get_supported_language_variant(code)
        except LookupError:
            continue
    return settings.LANGUAGE_CODE


def retry_fields(error: ServiceError) -> dict:
    """The ``retry_after`` of a rate-limit refusal, for its error frame (else nothing)."""
    retry_after = getattr(error, "retry_after", None)
    return {} if retry_after is None else {"retry_after": retry_after}
