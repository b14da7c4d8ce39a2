"""/healthz tells the truth, fast: each part with its latency, 503 naming what fails."""

import asyncio
import os
import time
import urllib.error
import urllib.request
from datetime import timedelta

import pytest
import redis
import websockets
from channels.layers import get_channel_layer
from django.utils import timezone

from games import jobs
from games.models import Notification

from .daphne import start_server
from .helpers.communicators import session_cookie
from .helpers.databases import database_url


def health(client, query=""):
    response = client.get("/healthz" + query)
    return response.status_code, response.json()


def ms(body, part="outbox"):
    return {"ms": body[part]["ms"]}


def queued(user, key, *, age_s: float, retry_in_s: float | None = None) -> Notification:
    """An email queued ``age_s`` ago; after a failed try, its next one ``retry_in_s`` from
    now (negative: the retry is due since then)."""
    now = timezone.now()
    row = Notification.objects.create(user=user, kind="turn", key=key)
    retry = None if retry_in_s is None else now + timedelta(seconds=retry_in_s)
    Notification.objects.filter(pk=row.pk).update(
        created_at=now - timedelta(seconds=age_s),
        next_attempt_at=retry,
        attempts=0 if retry is None else 1,
    )
    return row


@pytest.mark.django_db(transaction=True)  # the probes read on threads of their own
def test_every_part_answers_with_its_latency(client):
    jobs.beat("test-worker")
    status, body = health(client)
    assert status == 200 and body["status"] == "ok"
    for part in ("database", "channel_layer", "worker", "outbox"):
        assert body[part]["status"] == "ok" and 0 <= body[part]["ms"] < 1500, part
    assert body["worker"]["age_s"] < 5
    assert body["outbox"] == {"status": "ok", "lag_s": 0, "due": 0, "retrying": 0, **ms(body)}
    assert "no-cache" in client.get("/healthz")["Cache-Control"]


@pytest.mark.django_db(transaction=True)  # the probes read on threads of their own
def test_a_worker_that_stopped_beating_is_named(client):
    status, body = health(client)
    assert status == 503 and body["status"] == "failing"
    assert body["worker"]["status"] == "failing" and "no worker" in body["worker"]["error"]
    assert body["database"]["status"] == body["channel_layer"]["status"] == "ok"

    jobs.beat("test-worker", now=timezone.now() - timedelta(seconds=jobs.WORKER_STALE_SECONDS + 5))
    status, body = health(client)
    assert status == 503 and "old" in body["worker"]["error"]

    # the load balancer's probe: a web process serves while the worker is down
    status, body = health(client, "?skip=worker")
    assert status == 200 and "worker" not in body


@pytest.mark.django_db(transaction=True)  # the probes read on threads of their own
def test_the_outbox_lag_is_the_age_of_the_oldest_due_notification(client, players):
    jobs.beat("test-worker")
    queued(players["anna"], "a", age_s=30)
    queued(players["bernd"], "b", age_s=5)
    status, body = health(client)
    assert status == 200, body
    assert body["outbox"]["status"] == "ok" and body["outbox"]["due"] == 2
    assert 30 <= body["outbox"]["lag_s"] < 35


@pytest.mark.django_db(transaction=True)  # the probes read on threads of their own
def test_a_notification_waiting_for_its_retry_is_not_late(client, players):
    """Not before its next try, and from then on only as late as that try."""
    jobs.beat("test-worker")
    two_hours = 2 * 60 * 60
    queued(players["anna"], "waits", age_s=two_hours, retry_in_s=10 * 60)
    status, body = health(client)
    assert status == 200, body
    assert body["outbox"] == {"status": "ok", "lag_s": 0, "due": 0, "retrying": 1, **ms(body)}

    queued(players["bernd"], "due-again", age_s=two_hours, retry_in_s=-20)
    status, body = health(client)
    assert status == 200, body
    assert body["outbox"]["due"] == 1 and body["outbox"]["retrying"] == 1
    assert 20 <= body["outbox"]["lag_s"] < 25  # since the retry was due, not two hours


@pytest.mark.django_db(transaction=True)  # the probes read on threads of their own
def test_an_outbox_lag_past_the_limit_is_named_but_not_to_the_load_balancer(
    client, players, settings
):
    settings.OUTBOX_LAG_LIMIT_SECONDS = 60
    jobs.beat("test-worker")
    queued(players["anna"], "late", age_s=90)
    status, body = health(client)
    assert status == 503 and body["status"] == "failing"
    outbox = body["outbox"]
    assert outbox["status"] == "failing" and outbox["due"] == 1 and 90 <= outbox["lag_s"] < 95
    assert "notification has waited 9" in outbox["error"] and "limit 60 s" in outbox["error"]
    for part in ("database", "channel_layer", "worker"):
        assert body[part]["status"] == "ok", part

    # the worker lags, not this web process: the load balancer's probe leaves both out
    status, body = health(client, "?skip=worker")
    assert status == 200 and "outbox" not in body and "worker" not in body
    # the outbox alone may be left out too
    status, body = health(client, "?skip=outbox")
    assert status == 200 and "outbox" not in body and body["worker"]["status"] == "ok"


@pytest.mark.django_db(transaction=True)  # the probes read on threads of their own
def test_a_broken_channel_layer_is_named(client, monkeypatch):
    import shanghaien.health as health_module

    def broken():
        raise ConnectionError("no layer")

    monkeypatch.setattr(health_module, "get_channel_layer", broken)
    status, body = health(client, "?skip=worker")
    assert status == 503
    assert body["channel_layer"] == {
        "status": "failing",
        "error": "ConnectionError: no layer",
        "ms": body["channel_layer"]["ms"],
    }
    assert body["database"]["status"] == "ok"


@pytest.mark.django_db(transaction=True)  # the probes read on threads of their own
def test_a_part_that_hangs_is_failing_within_two_seconds(client, monkeypatch):
    import shanghaien.health as health_module

    class Hanging:
        async def new_channel(self, prefix="specific."):
            await asyncio.sleep(3600)

    monkeypatch.setattr(health_module, "get_channel_layer", Hanging)
    started = time.monotonic()
    status, body = health(client, "?skip=worker")
    assert time.monotonic() - started < 2
    assert status == 503 and "no answer in time" in body["channel_layer"]["error"]


async def test_the_channel_layer_probe_leaves_no_channel_behind(settings):
    import shanghaien.health as health_module

    for _ in range(3):
        assert await health_module._channel_layer() == {}
    await asyncio.sleep(0.2)  # a probe lets its channel go just after it answers
    layer = get_channel_layer()
    if os.environ.get("REDIS_URL"):  # no subscription left in Redis
        prefix = settings.CHANNEL_LAYERS["default"]["CONFIG"]["prefix"]
        left = redis.Redis.from_url(os.environ["REDIS_URL"]).pubsub_channels(f"{prefix}healthz.*")
        assert left == []
    else:
        assert not layer.channels


def redis_url() -> str:
    url = os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/3"
    try:
        redis.Redis.from_url(url, socket_connect_timeout=1).ping()
    except redis.RedisError:
        if os.environ.get("CI"):
            raise
        pytest.skip(f"needs Redis at {url} (CI starts it)")
    return url


def get(url: str, timeout: float) -> tuple[int, float]:
    started = time.monotonic()
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            status = response.status
    except urllib.error.HTTPError as error:
        status = error.code
    return status, time.monotonic() - started


@pytest.mark.django_db(transaction=True)
def test_healthz_answers_while_sockets_are_open_on_the_redis_layer(game, players):
    """The probe answers beside the sockets that this process's Redis layer serves: on a
    channel of its own, listened to before it sends."""
    jobs.beat("test-worker")
    cookies = {name: session_cookie(players[name]) for name in ("anna", "bernd")}
    with start_server(env={"DATABASE_URL": database_url(), "REDIS_URL": redis_url()}) as (url,):
        ws = url.replace("http", "ws")

        async def hold_sockets_and_probe():
            sockets = []
            for i in range(24):
                name = ("anna", "bernd")[i % 2]
                path = f"/ws/games/{game.pk}/" if i % 3 else "/ws/lobby/"
                socket = await websockets.connect(
                    ws + path, origin=url, additional_headers={"Cookie": cookies[name]}
                )
                await asyncio.wait_for(socket.recv(), timeout=10)  # state or hello
                sockets.append(socket)
            try:
                return [await asyncio.to_thread(get, url + "/healthz", 5) for _ in range(3)]
            finally:
                for socket in sockets:
                    await socket.close()

        answers = asyncio.run(hold_sockets_and_probe())
    for status, seconds in answers:
        assert status == 200 and seconds < 2, answers


def test_the_server_keeps_its_startup_objects_out_of_full_collections():
    """The ASGI module freezes what it loaded: the collector's full passes skip it."""
    import gc

    import shanghaien.asgi  # noqa: F401 (imported for its effect)

    assert gc.get_freeze_count() > 10_000


def test_the_server_collects_young_objects_after_thousands_not_hundreds():
    """Fewer, larger young passes: with thousands of sockets open, the default thresholds
    kept starting full passes, which pause every socket of the process."""
    import gc

    import shanghaien.asgi  # noqa: F401 (imported for its effect)

    young, middle, old = gc.get_threshold()
    assert young >= 5_000 and middle >= 10 and old >= 10
