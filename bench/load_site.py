"""The site plus what bench/load.py needs from a server (never served in production).

- ``/ws/bench/echo/``: a socket that answers every frame (the stack without the game).
- ``GET /bench/stats``: this process's id, the SQL it has sent to PostgreSQL so far, and
  its garbage collections (how many of each generation, how long they held the process).

Statements are counted where they leave for the database: every ``execute`` and
``executemany`` of a psycopg cursor (Django's queries, and anything that bypasses the
ORM or comes from the connection pool, such as its health check's empty statement),
and every ``commit`` and ``rollback`` of a connection. The counts are for the whole
process and only grow; the benchmark reads them before and after a run.
"""

from __future__ import annotations

import gc
import json
import os
import threading
import time
from collections import Counter
from functools import wraps

import psycopg
from django.urls import path

from shanghaien.asgi import application, websocket_application

from .echo import EchoConsumer

_lock = threading.Lock()
_counts: Counter = Counter()


def _kind(query) -> str:
    """The statement's first word (SELECT, INSERT, …): what the counts are broken down by."""
    if isinstance(query, bytes):
        query = query.decode(errors="replace")
    if not isinstance(query, str):
        return "COMPOSED"  # psycopg.sql objects: rare, and not worth rendering here
    words = query.lstrip(" \t\n(").split(None, 1)
    return words[0].upper() if words else "(empty)"


def _count(key: str, field: str = "statements") -> None:
    with _lock:
        _counts[field] += 1
        if field == "statements":
            _counts[f"statement:{key}"] += 1


def _counting(method, asynchronous: bool):
    if asynchronous:

        @wraps(method)
        async def counted(self, query, *args, **kwargs):
            _count(_kind(query))
            return await method(self, query, *args, **kwargs)

    else:

        @wraps(method)
        def counted(self, query, *args, **kwargs):
            _count(_kind(query))
            return method(self, query, *args, **kwargs)

    return counted


def _ending(method, field: str, asynchronous: bool):
    if asynchronous:

        @wraps(method)
        async def counted(self):
            _count("", field)
            return await method(self)

    else:

        @wraps(method)
        def counted(self):
            _count("", field)
            return method(self)

    return counted


def count_statements() -> None:
    """Count from now on (once per process: the patched methods stay patched)."""
    if getattr(psycopg, "_bench_counting", False):
        return
    psycopg._bench_counting = True
    cursors = [
        (psycopg.Cursor, False),
        (psycopg.AsyncCursor, True),
        (psycopg.ServerCursor, False),  # overrides execute for named cursors
        (psycopg.AsyncServerCursor, True),
    ]
    for cls, asynchronous in cursors:
        for name in ("execute", "executemany"):
            if name in vars(cls):
                setattr(cls, name, _counting(vars(cls)[name], asynchronous))
    for cls, asynchronous in ((psycopg.Connection, False), (psycopg.AsyncConnection, True)):
        for name, field in (("commit", "commits"), ("rollback", "rollbacks")):
            setattr(cls, name, _ending(vars(cls)[name], field, asynchronous))


# Per generation: collections, their total and longest pause (ms); and every full one's.
_gc = {generation: {"count": 0, "total_ms": 0.0, "max_ms": 0.0} for generation in (0, 1, 2)}
_full_pauses: list[float] = []
_gc_started = [0.0]


def _time_collections(phase, info) -> None:
    if phase == "start":
        _gc_started[0] = time.perf_counter()
        return
    ms = (time.perf_counter() - _gc_started[0]) * 1000
    kept = _gc[info["generation"]]
    kept["count"] += 1
    kept["total_ms"] += ms
    kept["max_ms"] = max(kept["max_ms"], ms)
    if info["generation"] == 2:
        _full_pauses.append(round(ms, 2))


def stats() -> dict:
    with _lock:
        counts = dict(_counts)
    by_kind = {k.split(":", 1)[1]: v for k, v in counts.items() if k.startswith("statement:")}
    return {
        "pid": os.getpid(),
        "statements": counts.get("statements", 0),
        "commits": counts.get("commits", 0),
        "rollbacks": counts.get("rollbacks", 0),
        "by_kind": by_kind,
        "gc": {str(g): dict(kept) for g, kept in _gc.items()},
        "gc_full_pauses_ms": list(_full_pauses),
        "gc_threshold": gc.get_threshold(),
        "gc_frozen": gc.get_freeze_count(),
    }


def with_stats(http_app):
    """``http_app``, except that ``GET /bench/stats`` answers with ``stats()``."""

    async def app(scope, receive, send):
        if scope["type"] != "http" or scope["path"] != "/bench/stats":
            return await http_app(scope, receive, send)
        body = json.dumps(stats()).encode()
        headers = [(b"content-type", b"application/json"), (b"cache-control", b"no-store")]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    return app


count_statements()
gc.callbacks.append(_time_collections)
application.application_mapping["http"] = with_stats(application.application_mapping["http"])
application.application_mapping["websocket"] = websocket_application(
    [path("ws/bench/echo/", EchoConsumer.as_asgi())]
)
