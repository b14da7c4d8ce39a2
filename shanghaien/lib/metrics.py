"""The server's Prometheus series, and the token-guarded page that shows them.

Each process counts its own: every web process its requests, sockets and players' moves,
the worker its jobs and the computer opponents' moves. Prometheus scrapes each process
(docs/operations.md, "Metrics and error reporting") and adds them up. Series read from
the database at scrape time (the outbox's lag, the bots' turns) come from a collector the
caller passes in (``games.backlog``): the kernel knows no app's tables.
"""

from __future__ import annotations

import hmac
import logging
import socketserver
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from prometheus_client import (
    CONTENT_TYPE_PLAIN_0_0_4,
    REGISTRY,
    Counter,
    Gauge,
    Histogram,
    disable_created_metrics,
    generate_latest,
)
from prometheus_client.registry import Collector

from . import error_reports

log = logging.getLogger(__name__)

# A "_created" timestamp beside every counter doubles the series and tells nothing a
# restart does not.
disable_created_metrics()

PATH = "/metrics"

HTTP_REQUESTS = Counter(
    "shanghaien_http_requests",
    "HTTP requests answered, by method, route pattern and status class (2xx, 4xx…)",
    ["method", "route", "status"],
)
HTTP_DURATION = Histogram(
    "shanghaien_http_request_duration_seconds",
    "Time from a request's arrival to the end of its answer, by method and route pattern",
    ["method", "route"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0),
)
SOCKETS_OPEN = Gauge(
    "shanghaien_websockets_open",
    "Websockets open now in this process, by kind (game, lobby)",
    ["kind"],
)
MOVES_APPLIED = Counter(
    "shanghaien_moves_applied",
    "Commands applied to a game (not replays of one already applied), by who made them",
    ["by"],
)
JOB_DURATION = Histogram(
    "shanghaien_worker_job_duration_seconds",
    "How long each run of a worker job took, failed runs included",
    ["job"],
    buckets=(0.005, 0.025, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0),
)
JOB_FAILURES = Counter(
    "shanghaien_worker_job_failures",
    "Runs of a worker job that raised",
    ["job"],
)

# Every known label value from the start: a series at 0 tells more than a missing one.
for kind in ("game", "lobby"):
    SOCKETS_OPEN.labels(kind)
for by in ("player", "bot"):
    MOVES_APPLIED.labels(by)


def move_applied(by_bot: bool) -> None:
    MOVES_APPLIED.labels("bot" if by_bot else "player").inc()


def socket_opened(kind: str) -> None:
    """A websocket of ``kind`` was accepted: call ``socket_closed`` once when it ends."""
    SOCKETS_OPEN.labels(kind).inc()


def socket_closed(kind: str) -> None:
    SOCKETS_OPEN.labels(kind).dec()


@contextmanager
def job_run(name: str) -> Iterator[None]:
    """Time one run of the worker job ``name``; a run that raises is counted as failed and
    reported (error_reports), then the exception goes on to the caller.

        with job_run(name):
            result = JOBS[name]()
    """
    started = time.perf_counter()
    try:
        yield
    except Exception as error:
        JOB_FAILURES.labels(name).inc()
        error_reports.report(error, job=name)
        raise
    finally:
        JOB_DURATION.labels(name).observe(time.perf_counter() - started)


def status_class(status: int) -> str:
    return f"{status // 100}xx" if 100 <= status < 600 else "other"


class Exposition:
    """The answer to ``GET /metrics``: the series of ``collectors`` (each a registry or a
    collector), to a caller that sends ``Authorization: Bearer <token>`` (``token``, by
    default settings.METRICS_TOKEN).

    No token, no page: a process without one answers 404, as if there were no such
    path. Without the header (a token in the query string counts for nothing): 401; with
    another token: 403. The token is compared in constant time.
    """

    def __init__(self, collectors: Iterable[Collector] = (REGISTRY,), token: str | None = None):
        self.collectors = list(collectors)
        self._token = token

    @property
    def token(self) -> str:
        """The token given, else settings.METRICS_TOKEN (read at each request)."""
        if self._token is not None:
            return self._token
        from django.conf import settings

        return getattr(settings, "METRICS_TOKEN", "")

    @property
    def enabled(self) -> bool:
        return bool(self.token)

    def refusal(self, method: str, authorization: str) -> tuple[int, list, bytes] | None:
        """The answer that refuses this request; None when the series may be shown."""
        if not self.enabled:
            return _plain(404, "Not Found")
        scheme, _, given = authorization.partition(" ")
        if scheme.lower() != "bearer" or not given.strip():
            return _plain(401, "Unauthorized", [("WWW-Authenticate", 'Bearer realm="metrics"')])
        if not hmac.compare_digest(given.strip().encode(), self.token.encode()):
            return _plain(403, "Forbidden")
        if method not in ("GET", "HEAD"):
            return _plain(405, "Method Not Allowed", [("Allow", "GET, HEAD")])
        return None

    def render(self) -> tuple[int, list, bytes]:
        """The series, read now (a collector may query the database: call from sync code)."""
        body = b"".join(generate_latest(collector) for collector in self.collectors)
        return 200, [("Content-Type", CONTENT_TYPE_PLAIN_0_0_4), *NEVER_CACHE], body

    def answer(self, method: str, authorization: str) -> tuple[int, list, bytes]:
        """Status, headers and body for a request with this method and Authorization."""
        refused = self.refusal(method, authorization)
        return refused if refused is not None else self.render()


NEVER_CACHE = [("Cache-Control", "no-store, max-age=0")]


def _plain(status: int, text: str, headers=()) -> tuple[int, list, bytes]:
    content = [("Content-Type", "text/plain; charset=utf-8"), *NEVER_CACHE, *headers]
    return status, content, f"{text}\n".encode()


# -- the worker's own page ----------------------------------------------------------------


class _Server(socketserver.ThreadingMixIn, WSGIServer):
    daemon_threads = True  # a scrape in progress never holds the worker's exit up


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, format, *args):
        # wsgiref writes a plain-text line per request to stderr: the worker's output
        # stays its own log lines (JSON under DJANGO_LOG_FORMAT=json).
        log.debug("metrics: " + format, *args)


_REASONS = {
    200: "OK",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not Found",
    405: "Method Not Allowed",
}


def wsgi_app(exposition: Exposition):
    """``exposition`` at ``/metrics`` as a WSGI application; 404 anywhere else."""

    def app(environ, start_response):
        if environ.get("PATH_INFO") != PATH:
            status, headers, body = _plain(404, "Not Found")
        else:
            method = environ.get("REQUEST_METHOD", "GET")
            status, headers, body = exposition.answer(method, environ.get("HTTP_AUTHORIZATION", ""))
            if method == "HEAD":
                body = b""
        start_response(f"{status} {_REASONS[status]}", headers)
        return [body]

    return app


def serve(exposition: Exposition, host: str, port: int) -> WSGIServer:
    """Serve ``exposition`` at http://host:port/metrics from a thread of its own, for a
    process that has no web server (the worker). Returns the server (``shutdown()``)."""
    server = make_server(
        host, port, wsgi_app(exposition), server_class=_Server, handler_class=_QuietHandler
    )
    thread = threading.Thread(target=server.serve_forever, name="metrics", daemon=True)
    thread.start()
    log.info("metrics served at http://%s:%s%s", host, server.server_port, PATH)
    return server


def serve_worker_metrics() -> WSGIServer | None:
    """The worker's series at ``/metrics`` on settings.WORKER_METRICS_PORT (guarded by
    METRICS_TOKEN, as the web processes' are); nothing when the port is not set."""
    from django.conf import settings

    port = getattr(settings, "WORKER_METRICS_PORT", 0)
    if not port:
        return None
    exposition = Exposition([REGISTRY], settings.METRICS_TOKEN)
    return serve(exposition, settings.WORKER_METRICS_HOST, port)
