"""/metrics: every series after a real request, move and socket, and only for the token."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from channels.testing import HttpCommunicator
from django.utils import timezone
from prometheus_client.parser import text_string_to_metric_families

from games.models import Game, Notification

from ..daphne import ROOT, free_port
from ..helpers.databases import database_url
from ..helpers.processes import stop
from ..realtime.protocol import check

pytestmark = pytest.mark.django_db(transaction=True)

TOKEN = "scrape-me-4f1c2a"


async def request(path: str, *headers: tuple[bytes, bytes], host=b"localhost", method="GET"):
    """One request through the whole ASGI application (the access log included)."""
    from shanghaien.asgi import application

    communicator = HttpCommunicator(application, method, path, headers=[(b"host", host), *headers])
    response = await communicator.get_response(timeout=5)
    await communicator.wait(timeout=5)  # the request is logged and counted once it ends
    return response


def bearer(token: str) -> tuple[bytes, bytes]:
    return (b"authorization", f"Bearer {token}".encode())


def samples(text: str) -> dict[tuple, float]:
    """{(sample name, sorted label items): value} of a Prometheus text page."""
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


async def scrape() -> dict[tuple, float]:
    response = await request("/metrics", bearer(TOKEN))
    assert response["status"] == 200, response
    headers = dict(response["headers"])
    assert headers[b"content-type"].startswith(b"text/plain; version=0.0.4")
    assert b"no-store" in headers[b"cache-control"]
    return samples(response["body"].decode())


def value(found: dict, name: str, **labels) -> float:
    return found.get((name, tuple(sorted(labels.items()))), 0.0)


def growth(before: dict, after: dict):
    """How much a series grew between two scrapes (the counters outlive each test)."""
    return lambda name, **labels: value(after, name, **labels) - value(before, name, **labels)


@database_sync_to_async
def mover(game):
    game.refresh_from_db()
    return game.to_move.username, game.version


@database_sync_to_async
def backlog(players, game):
    """An email due for 30 s, one waiting for its retry, and a bot's turn of 40 s."""
    now = timezone.now()
    due = Notification.objects.create(user=players["anna"], kind="turn", key="due")
    later = Notification.objects.create(user=players["bernd"], kind="turn", key="later")
    Notification.objects.filter(pk=due.pk).update(created_at=now - timedelta(seconds=30))
    Notification.objects.filter(pk=later.pk).update(
        attempts=1, next_attempt_at=now + timedelta(minutes=4)
    )
    from django.contrib.auth import get_user_model

    # (a transactional test's database starts without the bots the migrations make)
    captain, _ = get_user_model().objects.get_or_create(username="Captain", bot_level="captain")
    # a second game, in which it is the computer's turn
    Game.objects.filter(pk=game.pk).update(
        to_move=captain, turn_started_at=now - timedelta(seconds=40)
    )


async def test_every_series_counts_what_happened(settings, sockets, game, players):
    settings.METRICS_TOKEN = TOKEN
    before = await scrape()

    assert (await request("/healthz?skip=worker,channel_layer"))["status"] == 200
    assert (await request("/no/such/page/"))["status"] == 404
    name, version = await mover(game)
    lobby, ok, _ = await sockets("/ws/lobby/", players["anna"])
    assert ok and (await lobby.receive_json_from(timeout=5))["type"] == "hello"
    board, ok, _ = await sockets(f"/ws/games/{game.pk}/", players[name])
    assert ok and check(await board.receive_json_from(timeout=5))["type"] == "state"
    command = {"type": "roll"}
    await board.send_json_to(
        {"type": "command", "command": command, "expected_version": version, "client_id": "m1"}
    )
    replies = [await board.receive_json_from(timeout=5) for _ in range(2)]
    assert {"type": "ack", "client_id": "m1", "version": version + 1} in replies

    during = await scrape()
    grew = growth(before, during)
    requests = "shanghaien_http_requests_total"
    assert grew(requests, method="GET", route="/healthz", status="2xx") == 1
    assert grew(requests, method="GET", route="unmatched", status="4xx") == 1
    latency = "shanghaien_http_request_duration_seconds"
    assert grew(latency + "_count", method="GET", route="/healthz") == 1
    assert grew(latency + "_bucket", method="GET", route="/healthz", le="+Inf") == 1
    assert grew(latency + "_sum", method="GET", route="/healthz") > 0
    # the route's pattern, never a raw path (one series for every game's page); the
    # scrapes themselves are not counted
    http = [str(key) for key in during if key[0].startswith("shanghaien_http")]
    assert not [key for key in http if "/no/such" in key or "/metrics" in key]
    assert grew("shanghaien_websockets_open", kind="game") == 1
    assert grew("shanghaien_websockets_open", kind="lobby") == 1
    assert grew("shanghaien_moves_applied_total", by="player") == 1
    assert ("shanghaien_moves_applied_total", (("by", "bot"),)) in during  # the worker's

    await lobby.disconnect()
    await board.disconnect()
    grew = growth(before, await scrape())
    assert grew("shanghaien_websockets_open", kind="game") == 0
    assert grew("shanghaien_websockets_open", kind="lobby") == 0


async def test_the_backlog_is_read_from_the_database_at_each_scrape(settings, game, players):
    settings.METRICS_TOKEN = TOKEN
    found = await scrape()
    assert value(found, "shanghaien_outbox_lag_seconds") == 0
    assert value(found, "shanghaien_outbox_pending", state="due") == 0
    assert value(found, "shanghaien_bot_turns_waiting") == 0

    await backlog(players, game)
    found = await scrape()
    assert 30 <= value(found, "shanghaien_outbox_lag_seconds") < 35
    assert value(found, "shanghaien_outbox_pending", state="due") == 1
    assert value(found, "shanghaien_outbox_pending", state="retrying") == 1
    assert value(found, "shanghaien_bot_turns_waiting") == 1
    assert 40 <= value(found, "shanghaien_bot_turn_oldest_seconds") < 45


async def test_a_stranger_is_refused(settings):
    settings.METRICS_TOKEN = TOKEN
    refused = {
        "no token": await request("/metrics"),
        "another token": await request("/metrics", bearer("scrape-me-4f1c2b")),
        "another scheme": await request("/metrics", (b"authorization", TOKEN.encode())),
        "the token in the query string": await request(f"/metrics?token={TOKEN}"),
        "an empty bearer": await request("/metrics", (b"authorization", b"Bearer ")),
    }
    statuses = {why: response["status"] for why, response in refused.items()}
    assert statuses == {
        "no token": 401,
        "another token": 403,
        "another scheme": 401,
        "the token in the query string": 401,
        "an empty bearer": 401,
    }
    for why, response in refused.items():
        assert b"shanghaien_" not in response["body"], why
        assert b"no-store" in dict(response["headers"])[b"cache-control"], why
    assert dict(refused["no token"]["headers"])[b"www-authenticate"].startswith(b"Bearer")


async def test_without_a_token_there_is_no_such_page(settings):
    settings.METRICS_TOKEN = ""
    for headers in ((), (bearer(""),), (bearer("anything"),)):
        response = await request("/metrics", *headers)
        assert response["status"] == 404 and b"shanghaien_" not in response["body"]


async def test_the_scraper_needs_neither_an_allowed_host_nor_https(settings):
    """Prometheus asks each process by its address on the internal network, over HTTP:
    the page answers although the site itself would refuse the host or redirect."""
    settings.METRICS_TOKEN = TOKEN
    settings.ALLOWED_HOSTS = ["play.example.org"]
    settings.SECURE_SSL_REDIRECT = True
    assert (await request("/healthz", host=b"web1:8000"))["status"] == 400  # the site refuses
    response = await request("/metrics", bearer(TOKEN), host=b"web1:8000")
    assert response["status"] == 200 and b"shanghaien_outbox_lag_seconds" in response["body"]


def fetch(url: str, token: str | None) -> tuple[int, str]:
    headers = {"Authorization": f"Bearer {token}"} if token is not None else {}
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=5) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def test_the_worker_serves_its_job_durations_on_its_own_port():
    port = free_port()
    env = {
        **os.environ,
        "DATABASE_URL": database_url(),
        "METRICS_TOKEN": TOKEN,
        "WORKER_METRICS_PORT": str(port),
        "WORKER_METRICS_HOST": "127.0.0.1",
    }
    command = [sys.executable, "manage.py", "run_worker", "--job", "deadlines"]
    with tempfile.TemporaryFile() as said:
        worker = subprocess.Popen(
            [*command, "--job", "analysis", "--interval", "0.2"],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=said,
        )
        try:
            scrape_the_worker(f"http://127.0.0.1:{port}", worker, said)
        finally:
            stop(worker)


def scrape_the_worker(base: str, worker: subprocess.Popen, said) -> None:
    """Scrape until the worker has run each job twice; then the page refuses strangers."""
    url, jobs = f"{base}/metrics", "shanghaien_worker_job_duration_seconds"
    deadline = time.monotonic() + 30
    while True:
        try:
            status, text = fetch(url, TOKEN)
        except OSError:  # not listening yet
            status, text = 0, ""
        found = samples(text) if status == 200 else {}
        runs = [value(found, f"{jobs}_count", job=job) for job in ("deadlines", "analysis")]
        if min(runs) >= 2 or time.monotonic() > deadline:
            break
        if worker.poll() is not None:
            said.seek(0)
            pytest.fail(f"the worker stopped: {said.read().decode(errors='replace')}")
        time.sleep(0.2)
    assert min(runs) >= 2, text
    assert value(found, f"{jobs}_sum", job="deadlines") > 0
    assert ("shanghaien_worker_job_failures_total", (("job", "deadlines"),)) not in found
    assert fetch(url, None)[0] == 401
    assert fetch(url, "wrong")[0] == 403
    assert fetch(f"{url}?token={TOKEN}", None)[0] == 401
    assert fetch(f"{base}/", TOKEN)[0] == 404


def test_the_worker_page_is_never_served_without_a_token():
    env = {k: v for k, v in os.environ.items() if k != "METRICS_TOKEN"}
    env["WORKER_METRICS_PORT"] = str(free_port())
    done = subprocess.run(
        [sys.executable, "manage.py", "run_worker", "--once", "--job", "deadlines"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        timeout=60,
    )
    assert done.returncode != 0
    assert b"WORKER_METRICS_PORT needs METRICS_TOKEN" in done.stderr
