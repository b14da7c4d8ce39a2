"""/healthz: do the database, the channel layer and the worker answer, how fast, and does
the worker keep up with the outbox?

Each part is probed at once, each within its own time limit, so the page answers within
about PROBE_SECONDS whatever hangs. 503 names the failing part. ``?skip=`` leaves out the
parts it names (comma-separated); ``?skip=worker`` leaves out the worker and its outbox:
a web process is fit to serve while the worker is down or behind, and the load
balancer's probe must not take every web process out of service because of it.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid

from channels.db import DatabaseSyncToAsync
from channels.layers import get_channel_layer
from django.conf import settings
from django.db import connection
from django.http import JsonResponse
from django.views.decorators.cache import never_cache

log = logging.getLogger(__name__)

PROBE_SECONDS = 1.5


class Failing(Exception):
    """A part that answers, but not as it should: the reason, and what it measured."""

    def __init__(self, reason: str, **details):
        super().__init__(reason)
        self.details = details


def _database() -> dict:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()
    return {}


async def _channel_layer() -> dict:
    layer = get_channel_layer()
    # A new channel, listened to before anything is sent to it: Redis pub/sub delivers only
    # to those who listen already.
    channel = await layer.new_channel("healthz.")
    receiving = _kept(layer.receive(channel))
    try:
        token = uuid.uuid4().hex
        await layer.send(channel, {"type": "healthz", "token": token})
        # shielded: a probe out of time returns at once, whatever letting go costs
        message = await asyncio.shield(receiving)
    finally:
        # The pub/sub layer lets a channel go (and unsubscribes from it) only when a receive
        # waiting on it is cancelled, as when a consumer ends; without this, every probe
        # would leave a subscription behind.
        if not receiving.done():
            receiving.cancel()
        elif not receiving.cancelled():  # received: one more receive, cancelled once it waits
            asyncio.get_running_loop().call_soon(_kept(layer.receive(channel)).cancel)
    if message.get("token") != token:
        raise RuntimeError("the layer returned another message")
    return {}


_running: set[asyncio.Task] = set()


def _kept(coroutine) -> asyncio.Task:
    """A task of its own, referenced until it is done."""
    task = asyncio.ensure_future(coroutine)
    _running.add(task)
    task.add_done_callback(_running.discard)
    return task


def _worker() -> dict:
    from games.jobs import WORKER_STALE_SECONDS, worker_heartbeat_age

    age = worker_heartbeat_age()
    if age is None:
        raise RuntimeError("no worker has ever run")
    if age > WORKER_STALE_SECONDS:
        raise RuntimeError(f"the last beat is {age:.0f} s old")
    return {"age_s": round(age, 1)}


def _outbox() -> dict:
    from games.backlog import outbox

    box = outbox()
    details = {"lag_s": round(box.lag_s, 1), "due": box.due, "retrying": box.retrying}
    limit = settings.OUTBOX_LAG_LIMIT_SECONDS
    if box.lag_s > limit:
        raise Failing(
            f"the oldest due notification has waited {box.lag_s:.0f} s (limit {limit:g} s)",
            **details,
        )
    return details


PROBES = {
    "database": DatabaseSyncToAsync(_database, thread_sensitive=False),
    "channel_layer": _channel_layer,
    "worker": DatabaseSyncToAsync(_worker, thread_sensitive=False),
    "outbox": DatabaseSyncToAsync(_outbox, thread_sensitive=False),
}
# Skipping a part skips the parts that belong to it: the outbox is the worker's to empty.
PART_OF = {"outbox": "worker"}


async def _probe(name: str) -> dict:
    started = time.perf_counter()
    try:
        details = await asyncio.wait_for(PROBES[name](), timeout=PROBE_SECONDS)
        result = {"status": "ok", **details}
    except Failing as failing:
        log.warning("health check %s failed: %s", name, failing)
        result = {"status": "failing", **failing.details, "error": str(failing)[:200]}
    except Exception as error:  # report, do not raise: this page exists to say what broke
        log.warning("health check %s failed: %r", name, error)
        reason = "no answer in time" if isinstance(error, TimeoutError) else str(error)
        result = {"status": "failing", "error": f"{type(error).__name__}: {reason}"[:200]}
    result["ms"] = round((time.perf_counter() - started) * 1000, 1)
    return result


@never_cache
async def healthz(request):
    skipped = set(request.GET.get("skip", "").split(","))
    names = [name for name in PROBES if not {name, PART_OF.get(name)} & skipped]
    results = dict(zip(names, await asyncio.gather(*map(_probe, names)), strict=True))
    healthy = all(result["status"] == "ok" for result in results.values())
    body = {"status": "ok" if healthy else "failing", **results}
    return JsonResponse(body, status=200 if healthy else 503)
