"""A websocket that speaks JSON and survives whatever its client sends (docs/protocol.md)."""

from __future__ import annotations

import asyncio
import logging
import math
import time
import uuid
import weakref
from concurrent.futures import ThreadPoolExecutor
from importlib import import_module
from types import SimpleNamespace
from urllib.parse import urlsplit

from asgiref.sync import sync_to_async
from channels.consumer import get_handler_name
from channels.db import DatabaseSyncToAsync
from channels.exceptions import StopConsumer
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from channels.security.websocket import OriginValidator
from django.conf import settings
from django.contrib import auth
from django.contrib.auth.models import AnonymousUser
from django.core.cache import cache
from django.http.cookie import parse_cookie
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext, trans_real

from .errors import ServiceError
from .input import parse_json
from .ratelimit import FrameBudget

MAX_FRAME = 16 * 1024
# What one socket may send (each frame costs a parse): (frames a second, burst).
FRAMES = (20, 60)

# Close codes sent before accepting (the client sees a refused handshake).
NOT_AUTHENTICATED = 4401
NOT_FOUND = 4404
# Sent after an error frame ``too_many_sockets`` that says why: the account has
# settings.SOCKETS_PER_ACCOUNT sockets open already. Clients do not reconnect on it by themselves.
TOO_MANY_SOCKETS = 4429

# The sockets one account may have open at once, over every server process (its lobby
# and board in each window or tab, and the games it watches), are settings.SOCKETS_PER_ACCOUNT.
# Each counts as a lease in the shared cache, renewed every SLOT_RENEW_SECONDS by the
# process that holds it: one that stops without closing its sockets (killed, crashed)
# leaves leases that lapse after SLOT_LEASE_SECONDS (settings.SOCKET_LEASE_SECONDS, at
# most a minute: an account is online while it holds a place, accounts.online).
SLOT_LEASE_SECONDS = settings.SOCKET_LEASE_SECONDS
SLOT_RENEW_SECONDS = SLOT_LEASE_SECONDS / 3
SLOT_BATCH = 20  # places looked at in one round trip: the first free one is taken
# A place read as this process's own is written again in one round trip only while its
# lease has this long to run at least (the write's round trip, with room to spare): one
# nearer its end may lapse and go to another socket between the read and the write.
SLOT_MARGIN_SECONDS = 2.0

# What the sockets need of the personal API tokens (``Authorization: Bearer …`` on the
# handshake), registered by the app that keeps them (accounts): ``use(raw)``, the token's
# use (``user``, ``token_id``, ``scopes``, ``expires_at``, ``allows(scope)``), raising for
# a bad one; ``group(token_id)``, the channel-layer group that hears
# ``{"type": "token.closed", "reason": "revoked" | "expired"}`` when it stops being good;
# ``alive(token_id)``, whether it still is. Without them a token handshake is refused.
TOKENS = SimpleNamespace(use=None, group=None, alive=None)

# Who is told which accounts have sockets open in this process: functions of a set of
# user ids, called on the database threads as a socket opens or closes and at each
# renewal beat with every account of the process's places (accounts.online keeps each
# one's last seen there). The apps register here; this module imports none of them.
seen_hooks: list = []

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


class SocketSlots:
    """The places of each account's open sockets: ``settings.SOCKETS_PER_ACCOUNT`` cache
    keys per account (``sockets:<user id>:<n>``), each written only where none is (``cache.add``,
    an atomic SET NX in Redis), so that every process counts against the same places and
    two handshakes at once never take the same one. A key holds its socket's token and
    lives for SLOT_LEASE_SECONDS; this process renews the keys of its open sockets
    together, on one task, every SLOT_RENEW_SECONDS, in two round trips whatever their
    number. Without ``REDIS_URL`` the cache, and the count, is the process's own.
    """

    def __init__(self):
        self.held: dict[str, str] = {}  # key -> token, of this process's open sockets
        # key -> the monotonic time before its lease was last written: it runs at least
        # until then + SLOT_LEASE_SECONDS
        self.written: dict[str, float] = {}
        self.task: asyncio.Task | None = None

    @staticmethod
    def keys(user_id: int, start: int = 0, stop: int | None = None) -> list[str]:
        stop = settings.SOCKETS_PER_ACCOUNT if stop is None else stop
        return [f"sockets:{user_id}:{n}" for n in range(start, stop)]

    @staticmethod
    def batches(user_id: int):
        """The account's place keys, in order, SLOT_BATCH at a time."""
        total = settings.SOCKETS_PER_ACCOUNT
        for start in range(0, total, SLOT_BATCH):
            yield SocketSlots.keys(user_id, start, min(start + SLOT_BATCH, total))

    @staticmethod
    def holding(user_ids) -> set[int]:
        """Which of these accounts hold a place now, over every process: one round trip
        for all of them. Blocking (the cache)."""
        user_ids = list(dict.fromkeys(user_ids))
        if not user_ids:
            return set()
        keys = [key for user_id in user_ids for key in SocketSlots.keys(user_id)]
        return {owner(key) for key in cache.get_many(keys)}

    def take(self, user_id: int) -> str | None:
        """The first free place of the account's, now held by a new socket (its key);
        None if every one is taken. The places are read a batch at a time, so that a
        handshake costs what the account's open sockets ask, not what the cap allows.
        Blocking (the cache): called on a thread."""
        for keys in self.batches(user_id):
            taken = cache.get_many(keys)
            for key in keys:
                if key in taken:
                    continue
                token = uuid.uuid4().hex
                before = time.monotonic()
                if cache.add(key, token, timeout=SLOT_LEASE_SECONDS):
                    self.held[key] = token
                    self.written[key] = before
                    return key
        return None

    def give_back(self, key: str) -> None:
        """The socket of ``key`` closed: its place is free (if it still holds it: a lease
        that lapsed may have gone to another socket meanwhile)."""
        token = self.held.pop(key, None)
        self.written.pop(key, None)
        if token is not None and cache.get(key) == token:
            cache.delete(key)

    def renew(self) -> set[int]:
        """Every held place lives on for another lease: the places read in one round trip
        and the ones still this process's written again in another. A place that lapsed
        (this process stalled longer than a lease) is taken again where it is still free
        (an add each, after a stall only); one another socket took meanwhile is left to it
        (and tried again at the next beat, should it be freed). A place whose lease is
        near its end might lapse and be taken between the read and the write, which would
        then overwrite another socket's token: those are renewed one by one, with
        ``touch``, which writes nothing where the key is gone. Returns the accounts of
        the process's places."""
        held = dict(self.held)
        if not held:
            return set()
        found = cache.get_many(list(held))
        now = time.monotonic()
        safe, near, lapsed = {}, [], []
        for key, token in held.items():
            value = found.get(key)
            if value is None:
                lapsed.append(key)
            elif value != token:
                continue  # another socket's now
            elif now + SLOT_MARGIN_SECONDS < self.written.get(key, 0) + SLOT_LEASE_SECONDS:
                safe[key] = token
            else:
                near.append(key)
        if safe:
            cache.set_many(safe, timeout=SLOT_LEASE_SECONDS)
            self._written(safe, now)
        for key in near:
            before = time.monotonic()
            if cache.touch(key, SLOT_LEASE_SECONDS):
                self._written([key], before)
            else:
                lapsed.append(key)
        for key in lapsed:
            before = time.monotonic()
            if cache.add(key, held[key], timeout=SLOT_LEASE_SECONDS):
                self._written([key], before)
        return {owner(key) for key in held}

    def _written(self, keys, at: float) -> None:
        for key in keys:
            if key in self.held:  # not given back meanwhile
                self.written[key] = at

    def keep_renewing(self) -> None:
        loop = asyncio.get_running_loop()
        if self.task is None or self.task.done() or self.task.get_loop() is not loop:
            self.task = loop.create_task(self._renewing())

    async def _renewing(self) -> None:
        while self.held:
            await asyncio.sleep(SLOT_RENEW_SECONDS)
            try:
                accounts = await cache_sync_to_async(self.renew)()
            except Exception:  # the cache is away: the next beat tries again
                logger.warning("could not renew the sockets' places", exc_info=True)
                continue
            await tell_seen(accounts)


def owner(key: str) -> int:
    """The account of a place's key ``sockets:<user id>:<n>``."""
    return int(key.split(":")[1])


async def tell_seen(user_ids: set[int]) -> None:
    """The hooks hear which accounts have sockets open (``seen_hooks``); a failing one
    is logged and the sockets go on."""
    if not user_ids:
        return
    for hook in seen_hooks:
        try:
            await database_sync_to_async(hook)(set(user_ids))
        except Exception:
            logger.warning("a socket hook failed", exc_info=True)


SLOTS = SocketSlots()


async def leave_group(layer, group: str, channel: str) -> None:
    """Leave a channel-layer group; a layer that is away is logged, not raised (the
    membership expires by itself)."""
    try:
        await layer.group_discard(group, channel)
    except Exception:
        logger.warning("could not leave the group %s", group, exc_info=True)


async def give_back(place: str | None) -> None:
    """Give back an account's place (a socket's or a stream's) and tell who is seen; a
    cache that is away is logged, not raised (the place's lease lapses by itself)."""
    if place is None:
        return
    try:
        await cache_sync_to_async(SLOTS.give_back)(place)
    except Exception:
        logger.warning("could not count a closed connection", exc_info=True)
    await tell_seen({owner(place)})


def cache_sync_to_async(func):
    """Blocking cache work on the database threads, off the event loop."""
    return sync_to_async(func, thread_sensitive=False, executor=database_executor())


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
            await self.let_go_of_token()
            await self.give_back_place()
            await self.after_close()

    # -- a socket opened with a token (``scope["token"]``) ---------------------------------

    token_group = None  # the token's group, once joined
    token_timer = None  # the task that closes the socket when the token expires

    @property
    def token(self):
        """The token that opened this socket (its use: ``TOKENS.use``), None for a cookie."""
        return self.scope.get("token")

    def token_allows(self, scope: str) -> bool:
        """Whether this socket may do what ``scope`` covers: always with a cookie."""
        return self.token is None or self.token.allows(scope)

    async def hold_token(self) -> bool:
        """Once accepted: if a token opened the socket, join its group (its revocation
        closes the socket, ``token_closed``) and, if it expires, set a timer for then.
        The token is looked at once more after joining (a revocation just before was
        not heard): False, and the socket closed, if it is no longer good. A socket
        opened with a cookie, or a token without expiry, keeps no task."""
        token = self.token
        if token is None:
            return True
        group = TOKENS.group(token.token_id)
        try:
            await self.channel_layer.group_add(group, self.channel_name)
            self.token_group = group
        except Exception:  # the layer is away: the token's later revocation is not heard
            logger.warning("could not join a token's group", exc_info=True)
        if not await database_sync_to_async(TOKENS.alive)(token.token_id):
            await self.token_closed({"reason": "revoked"})
            return False
        if token.expires_at is not None:
            self.token_timer = asyncio.create_task(self._expire_at(token.expires_at))
        return True

    async def _expire_at(self, moment) -> None:
        await asyncio.sleep(max(0.0, moment.timestamp() - time.time()))
        self.token_timer = None  # it is this task: not cancelled by the close below
        with translation.override(self.language):
            await self.token_closed({"reason": "expired"})

    async def token_closed(self, event) -> None:
        """The token that opened this socket stopped being good: a last error frame
        (``token_revoked`` or ``token_expired``) and the socket closes (NOT_AUTHENTICATED)."""
        if event.get("reason") == "expired":
            code, message = "token_expired", _("The token of this connection has expired.")
        else:
            code, message = "token_revoked", _("The token of this connection was revoked.")
        await self.send_error(code, message)
        await self.close(code=NOT_AUTHENTICATED)

    async def let_go_of_token(self) -> None:
        timer, self.token_timer = self.token_timer, None
        if timer is not None:
            timer.cancel()
        group, self.token_group = self.token_group, None
        if group is not None:
            await leave_group(self.channel_layer, group, self.channel_name)

    async def release(self) -> None:
        """Give back what the connection holds. Safe to call more than once."""

    async def after_close(self) -> None:
        """Once, after the socket closed and its place was given back: tell others."""

    place = None  # the key of this socket's place among its account's (SocketSlots)

    async def take_place(self, user) -> bool:
        """Count this socket among its account's open ones. Past SOCKETS_PER_ACCOUNT the
        socket is accepted only to say why in an ``error`` frame (``too_many_sockets``)
        and is closed with TOO_MANY_SOCKETS; False then, and the caller stops. Should the
        cache fail, the socket is let through uncounted (players keep their boards)."""
        try:
            self.place = await cache_sync_to_async(SLOTS.take)(user.pk)
        except Exception:
            logger.warning("could not count an opened socket", exc_info=True)
            return True
        if self.place is not None:
            SLOTS.keep_renewing()
            await tell_seen({user.pk})
            return True
        await self.accept()
        message = _(
            "You have %(n)d connections to the site open (windows, tabs, devices): close "
            "some of them, then reload this page."
        ) % {"n": settings.SOCKETS_PER_ACCOUNT}
        await self.send_error("too_many_sockets", message)
        await self.close(code=TOO_MANY_SOCKETS)
        return False

    async def give_back_place(self) -> None:
        place, self.place = self.place, None
        await give_back(place)

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
            message = ngettext(
                "Frames are at most %(n)d byte.", "Frames are at most %(n)d bytes.", MAX_FRAME
            ) % {"n": MAX_FRAME}
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


class SocketUser:
    """The socket's user, read once as it connects: from an ``Authorization: Bearer
    <token>`` header if there is one (the token's use goes in ``scope["token"]``; a bad,
    revoked or expired token leaves the socket anonymous, and the consumer refuses the
    handshake with NOT_AUTHENTICATED, whatever cookie came too), else from the session
    cookie. For the cookie, what
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
            header = authorization(scope)
            if header is not None:
                user, token = await database_sync_to_async(token_user)(header)
                scope = dict(scope, cookies=cookies, user=user, token=token)
                return await self.inner(scope, receive, sending)
            key = cookies.get(settings.SESSION_COOKIE_NAME)
            user = await database_sync_to_async(session_user)(key)
            return await self.inner(dict(scope, cookies=cookies, user=user), receive, sending)
        finally:
            done()


def authorization(scope) -> str | None:
    """The handshake's Authorization header, None without one."""
    for name, value in scope.get("headers") or ():
        if name == b"authorization":
            return value.decode("latin-1")
    return None


def token_user(header: str):
    """(user, token use) of an ``Authorization: Bearer <token>`` header; (AnonymousUser,
    None) for anything but a good token that may read (``read``, or ``play`` which
    includes it: a ``bot``-only token opens no socket)."""
    scheme, _space, raw = header.partition(" ")
    if scheme.lower() != "bearer" or not raw.strip() or TOKENS.use is None:
        return AnonymousUser(), None
    try:
        token = TOKENS.use(raw.strip())
    except Exception:  # unknown, revoked, expired, its account unusable
        return AnonymousUser(), None
    if not token.allows("read"):
        return AnonymousUser(), None
    return token.user, token


DEFAULT_PORTS = {"http": 80, "https": 443}


def origin_key(parts) -> tuple[str, str, int] | None:
    """(scheme, host, port) of an origin (``urlsplit`` or ``urlparse`` of it), the port
    the scheme's own when none is written; None for anything but a plain http(s) origin
    (a path, a user, a bad port, the ``null`` of a sandboxed page or a file)."""
    scheme = (parts.scheme or "").lower()
    if scheme not in DEFAULT_PORTS or not parts.hostname or parts.username is not None:
        return None
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        return None
    if getattr(parts, "params", ""):
        return None
    try:
        port = parts.port
    except ValueError:  # not a number, or out of range
        return None
    return scheme, parts.hostname.lower(), port or DEFAULT_PORTS[scheme]


def site_origins() -> tuple[set, list]:
    """The site's own origins: ``SITE_URL`` and ``CSRF_TRUSTED_ORIGINS``, each as
    (scheme, host, port); an entry ``https://*.example.org`` (as Django's CSRF check
    reads it) stands for that domain and its subdomains, kept apart as (scheme, suffix,
    port) with the suffix ``.example.org``."""
    exact, wildcards = set(), []
    for url in (settings.SITE_URL, *settings.CSRF_TRUSTED_ORIGINS):
        url = url.strip()
        wildcard = "://*." in url
        key = origin_key(urlsplit(url.replace("://*.", "://any.", 1)))
        if key is None:
            continue
        if wildcard:
            scheme, host, port = key
            wildcards.append((scheme, host.removeprefix("any"), port))  # ".example.org"
        else:
            exact.add(key)
    return exact, wildcards


def is_site_origin(parts) -> bool:
    """Whether an Origin (parsed) is one of the site's own: scheme, host and port alike."""
    key = origin_key(parts)
    if key is None:
        return False
    exact, wildcards = site_origins()
    if key in exact:
        return True
    scheme, host, port = key
    return any(
        scheme == s and port == p and (host.endswith(suffix) or host == suffix[1:])
        for s, suffix, p in wildcards
    )


class SiteOriginValidator(OriginValidator):
    """A socket that the session cookie logs in is refused unless it comes from the
    site's own page: its Origin matches ``SITE_URL`` or one of ``CSRF_TRUSTED_ORIGINS``
    in scheme, host and port (``http://127.0.0.1:1`` is not ``http://127.0.0.1:8000``).
    The settings are read at each handshake. A handshake without an Origin, or with
    ``Origin: null`` (a sandboxed frame, a file), is refused: a program (a benchmark, a
    player's own client) that uses a cookie sends the site's Origin as a page would.

    A handshake with an ``Authorization`` header is let through whatever its Origin says:
    no page can set that header on a websocket, and the token in it, not the cookie, says
    who connects (``SocketUser``), so no other site can borrow a visitor's login by it.
    """

    def __init__(self, application):
        super().__init__(application, allowed_origins=())

    async def __call__(self, scope, receive, send):
        if authorization(scope) is not None:
            return await self.application(scope, receive, send)
        return await super().__call__(scope, receive, send)

    def valid_origin(self, parsed_origin) -> bool:
        if parsed_origin is None:
            return False
        return is_site_origin(parsed_origin)


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
