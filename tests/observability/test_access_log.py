"""The access log: one line a request and a line when a websocket opens and ends, on
``shanghaien.access``; JSON under DJANGO_LOG_FORMAT=json, like every line a real Daphne
writes with ``--verbosity 0``; never a query string or a secret of a path."""

from __future__ import annotations

import asyncio
import json
import logging
import time
import urllib.error
import urllib.request

import pytest
import websockets
from channels.testing import HttpCommunicator

# (imported before any test runs: Django's setup, on the first import, configures logging
# afresh, which would drop the handler through which caplog listens)
from games.notify.preferences import unsubscribe_token
from shanghaien.asgi import application

from ..daphne import start_server
from ..helpers.communicators import session_cookie
from ..helpers.databases import database_url


def get(url: str, **headers: str) -> int:
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=10):
            return 200
    except urllib.error.HTTPError as error:
        return error.code


def wait_for(condition, timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "not in time"
        time.sleep(0.05)


async def sockets(url: str, cookie: str) -> list[str]:
    """A lobby socket opened and closed by its player, and one refused to a stranger."""
    ws = url.replace("http", "ws") + "/ws/lobby/"
    async with websockets.connect(ws, origin=url, additional_headers={"Cookie": cookie}) as s:
        hello = json.loads(await asyncio.wait_for(s.recv(), timeout=10))
    with pytest.raises(websockets.InvalidStatus) as refused:
        await websockets.connect(ws, origin=url)
    return [hello["type"], refused.value.response.status_code]


@pytest.mark.django_db(transaction=True)  # the server reads the players
def test_under_json_logging_every_line_is_json_and_each_request_has_one(players, tmp_path):
    log = tmp_path / "daphne.log"
    anna = players["anna"]
    token = unsubscribe_token(anna, "turn")
    env = {
        "DATABASE_URL": database_url(),
        "DJANGO_LOG_FORMAT": "json",
        "DJANGO_DEBUG": "0",
        "METRICS_TOKEN": "scrape-me-4f1c2a",
    }
    with start_server(env=env, log=log) as (url,):
        assert get(f"{url}/healthz?skip=worker&token=from-the-query-31") == 200
        assert get(f"{url}/accounts/unsubscribe/{token}/") == 200
        # Django's own warnings name the path: without the query, a secret as its route
        assert get(f"{url}/no-such-page/?secret=from-a-404-77") == 404
        assert get(f"{url}/accounts/unsubscribe/{token}x/?k=from-a-400-78") == 400
        assert get(f"{url}/metrics") == 401
        assert asyncio.run(sockets(url, session_cookie(anna))) == ["hello", 403]
        # a socket's last line comes when its application ends, just after the client's
        # (the player's socket first gives its place back: its line may come second)
        wait_for(lambda: "refused" in log.read_text() and '"closed"' in log.read_text())
    text = log.read_text()
    records = [json.loads(line) for line in text.splitlines()]  # every line: JSON
    assert len(records) > 4
    access = [r for r in records if r["name"] == "shanghaien.access"]
    health = [r for r in access if r["path"] == "/healthz"]
    assert len(health) >= 2  # start_server's readiness probes, then the request above
    line = health[-1]
    assert line["levelname"] == "INFO" and line["method"] == "GET"
    assert line["route"] == "/healthz" and line["status"] == 200
    assert line["client"] == "127.0.0.1" and 0 < line["duration_ms"] < 5000
    assert line["message"].startswith("GET /healthz 200 ")
    assert "from-the-query-31" not in text and "skip=worker" not in text
    django_lines = [r for r in records if r["name"] == "django.request"]
    assert {r["message"] for r in django_lines} >= {
        "Not Found: /no-such-page/",
        "Bad Request: /accounts/unsubscribe/<str:token>/",
    }
    assert all(r["request"].startswith("GET /") for r in django_lines)
    assert "from-a-404-77" not in text and "from-a-400-78" not in text
    # a path that holds a secret is written as its route
    unsubscribes = [r for r in access if r.get("route", "").startswith("/accounts/unsub")]
    assert [r["status"] for r in unsubscribes] == [200, 400]
    assert {r["path"] for r in unsubscribes} == {"/accounts/unsubscribe/<str:token>/"}
    assert token not in text
    (metrics,) = [r for r in access if r["path"] == "/metrics"]
    assert metrics["status"] == 401
    sockets_seen = [(r["websocket"], r["status"]) for r in access if "websocket" in r]
    assert sorted(sockets_seen, key=str) == [("closed", 1000), ("open", None), ("refused", 4401)]
    assert sockets_seen.index(("open", None)) < sockets_seen.index(("closed", 1000))
    assert all(r["path"] == "/ws/lobby/" for r in access if "websocket" in r)
    # Daphne's own access lines are off: only ours tell of requests
    assert not [r for r in records if "HTTP GET" in r["message"] or '"GET /' in r["message"]]


async def test_a_line_in_plain_text_tells_the_request_at_a_glance(caplog):
    caplog.set_level(logging.INFO, logger="shanghaien.access")
    scope_headers = [(b"host", b"localhost")]
    communicator = HttpCommunicator(application, "GET", "/no/such/page/?q=1", headers=scope_headers)
    assert (await communicator.get_response(timeout=5))["status"] == 404
    await communicator.wait(timeout=5)
    (record,) = [r for r in caplog.records if r.name == "shanghaien.access"]
    assert record.getMessage().startswith("GET /no/such/page/ 404 ")
    assert record.route == "unmatched" and "q=1" not in record.getMessage()
