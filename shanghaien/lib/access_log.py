"""The access log, the request metrics and ``/metrics``: an ASGI middleware around the site.

One line a request on the logger ``shanghaien.access`` at INFO (so one JSON object under
DJANGO_LOG_FORMAT=json, like every other line; Daphne's own access log is off with
``--verbosity 0``), and a line when a websocket opens and when it ends (or is refused).

What a line holds: the method, the path, the route pattern, the status (a websocket's:
its close code), the duration and the client's address as Django sees it (Daphne's
``--proxy-headers`` make it the one the proxy forwards). Never the query string: the
site's own links carry no secret there, but clients put anything in it (a token pasted
into a URL, an address in a tracking parameter), and a log line is read by more people
than a request. A path holding a secret (the unsubscribe token, the password reset and
email confirmation keys) is written as its route pattern.
"""

from __future__ import annotations

import logging
import time

from . import metrics
from .routes import route_of
from .sockets import database_sync_to_async

log = logging.getLogger("shanghaien.access")

# The methods a request metric names; any other (anyone can send any word) is "other".
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
# A request whose client went away before it was answered (as nginx writes it).
CLIENT_GONE = 499


def client_of(scope) -> str:
    client = scope.get("client")
    return str(client[0]) if client else ""


def path_of(scope) -> str:
    """The path the site's routes see (without the ASGI root path, as Django does)."""
    path, root = scope.get("path", ""), scope.get("root_path", "")
    return path[len(root) :] if root and path.startswith(root) else path


class AccessLog:
    """Wraps an ASGI application (the HTTP or the websocket side) with the access log; on
    the HTTP side also the request metrics and, if ``exposition`` is given and enabled,
    ``GET /metrics``.

    ``/metrics`` is answered here, before Django: Prometheus scrapes each process by its
    own address on the internal network (``http://web1:8000/metrics``), a host name
    DJANGO_ALLOWED_HOSTS need not list, over plain HTTP that DJANGO_HTTPS would redirect.
    The token guards it instead (``metrics.Exposition``), and the proxy refuses the path
    from outside. Its requests are logged but not counted in the request metrics.
    """

    def __init__(self, app, exposition: metrics.Exposition | None = None):
        self.app = app
        self.exposition = exposition

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http":
            return await self.http(scope, receive, send)
        if scope["type"] == "websocket":
            return await self.websocket(scope, receive, send)
        return await self.app(scope, receive, send)

    async def http(self, scope, receive, send):
        started = time.perf_counter()
        path = path_of(scope)
        if self.exposition is not None and self.exposition.enabled and path == metrics.PATH:
            status = await self.metrics_page(scope, send)
            self.log_request(scope, metrics.PATH, metrics.PATH, status, started)
            return
        status = None

        async def sending(message):
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, sending)
        except Exception:
            status = status or 500  # what the server answers for an application that failed
            raise
        finally:
            status = status or CLIENT_GONE
            route, shown = route_of(path)
            self.log_request(scope, route, shown, status, started)
            method = scope.get("method", "")
            method = method if method in METHODS else "other"
            seconds = time.perf_counter() - started
            metrics.HTTP_REQUESTS.labels(method, route, metrics.status_class(status)).inc()
            metrics.HTTP_DURATION.labels(method, route).observe(seconds)

    def log_request(self, scope, route: str, shown: str, status: int, started: float) -> None:
        method = scope.get("method", "")
        duration_ms = round((time.perf_counter() - started) * 1000, 1)
        client = client_of(scope)
        log.info(
            "%s %s %s %.1fms %s",
            method,
            shown,
            status,
            duration_ms,
            client or "-",
            extra={
                "method": method,
                "path": shown,
                "route": route,
                "status": status,
                "duration_ms": duration_ms,
                "client": client,
            },
        )

    async def metrics_page(self, scope, send) -> int:
        headers = dict(scope.get("headers") or [])
        authorization = headers.get(b"authorization", b"").decode("latin-1")
        method = scope.get("method", "")
        answer = self.exposition.refusal(method, authorization)
        if answer is None:  # the collectors may read the database: on a database thread
            answer = await database_sync_to_async(self.exposition.render)()
        status, headers, body = answer
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [
                    (name.lower().encode("latin-1"), value.encode("latin-1"))
                    for name, value in headers
                ],
            }
        )
        await send({"type": "http.response.body", "body": b"" if method == "HEAD" else body})
        return status

    async def websocket(self, scope, receive, send):
        started = time.perf_counter()
        path = path_of(scope)
        client = client_of(scope)
        accepted, code = False, None

        async def sending(message):
            nonlocal accepted, code
            if message["type"] == "websocket.accept":
                accepted = True
                self.log_socket("open", path, client, None, started)
            elif message["type"] == "websocket.close" and code is None:
                code = message.get("code") or 1000
            await send(message)

        async def receiving():
            nonlocal code
            message = await receive()
            if message["type"] == "websocket.disconnect" and code is None:
                code = message.get("code") or 1005  # 1005: the client gave none
            return message

        try:
            await self.app(scope, receiving, sending)
        finally:
            self.log_socket("closed" if accepted else "refused", path, client, code, started)

    def log_socket(self, what: str, path: str, client: str, code, started: float) -> None:
        duration_ms = round((time.perf_counter() - started) * 1000, 1)
        shown = "" if code is None else f" {code}"
        after = "" if what == "open" else f" {duration_ms:.1f}ms"
        log.info(
            "WEBSOCKET %s %s%s%s %s",
            path,
            what,
            shown,
            after,
            client or "-",
            extra={
                "method": "WEBSOCKET",
                "websocket": what,
                "path": path,
                "status": code,
                "duration_ms": duration_ms,
                "client": client,
            },
        )
