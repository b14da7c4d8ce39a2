"""While PostgreSQL is away, a real server answers at once: 503 with Retry-After, in the
API's error envelope under /api/ and as a short page elsewhere, within 3 s, never a hang
or a 500. Away in two ways: nothing listens at its address (refused), or something
accepts connections there and never answers (hung)."""

import json
import os
import socket
import threading
import time
import urllib.error
import urllib.request

import pytest

from .daphne import start_server

pytestmark = pytest.mark.skipif(
    not os.environ.get("DATABASE_URL", "").startswith("postgres"),
    reason="the connection pool and its timeouts are PostgreSQL's",
)


class Silent:
    """A TCP server that accepts connections and never says a word."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.port = self.sock.getsockname()[1]
        self.held = []
        self.closed = False
        threading.Thread(target=self.accept, daemon=True).start()

    def accept(self):
        while not self.closed:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.held.append(conn)

    def close(self):
        self.closed = True
        self.sock.close()
        for conn in self.held:
            conn.close()


def refused_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # closed again: nothing listens there


def fetch(url: str, **headers):
    started = time.monotonic()
    request = urllib.request.Request(url, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            status, head, body = response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        status, head, body = error.code, error.headers, error.read()
    return status, head, body.decode(errors="replace"), time.monotonic() - started


@pytest.fixture(params=["refused", "hung"])
def broken_database(request):
    if request.param == "refused":
        yield f"postgres://postgres@127.0.0.1:{refused_port()}/shanghaien"
        return
    silent = Silent()
    yield f"postgres://postgres@127.0.0.1:{silent.port}/shanghaien"
    silent.close()


def test_requests_fail_fast_while_the_database_is_away(broken_database, tmp_path):
    env = {"DATABASE_URL": broken_database, "REDIS_URL": "", "DJANGO_DEBUG": "0"}
    env.setdefault("DJANGO_SECRET_KEY", "outage-test-" + "x" * 40)
    # /healthz answers 503 while the database is away: the server is up once it answers
    with start_server(env=env, log=tmp_path / "daphne.log", ready="/favicon.ico") as (url,):
        for _ in range(2):  # the second time too: the pool keeps trying in the background
            status, head, body, took = fetch(
                url + "/api/games/", Accept="application/json", Authorization="Bearer some-token"
            )
            assert status == 503, body
            assert took < 3, took
            assert int(head["Retry-After"]) > 0
            error = json.loads(body)["error"]
            assert error["code"] == "database_unavailable" and error["message"]
            assert error["retry_after"] == int(head["Retry-After"])

        status, head, body, took = fetch(url + "/users/anna/", **{"Accept-Language": "de"})
        assert status == 503 and took < 3, (status, took, body[:300])
        assert int(head["Retry-After"]) > 0
        assert "Datenbank" in body

        status, head, body, took = fetch(url + "/healthz?skip=worker")
        assert status == 503 and took < 3, (status, took)
        assert json.loads(body)["database"]["status"] == "failing"
