"""The streams under a real Daphne: its head comes at once, and a client that closes its
connection gives its place back (Daphne tells the application ``http.disconnect``,
Django's ASGI handler cancels the streaming response, the stream's ``finally`` runs)."""

from __future__ import annotations

import socket
import time
from urllib.parse import urlsplit

import pytest

from accounts.models import ApiToken

from ..daphne import start_server
from ..helpers.databases import database_url

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def one_place_server(tmp_path):
    """Daphne on the test database, each account with one place for a socket or stream."""
    env = {"DATABASE_URL": database_url(), "SOCKETS_PER_ACCOUNT": "1"}
    with start_server(env=env, log=tmp_path / "daphne.log") as (url,):
        yield url


def open_stream(url: str, token: str) -> tuple[socket.socket, bytes]:
    """A stream's connection and what came first: its head and first bytes."""
    parts = urlsplit(url)
    conn = socket.create_connection((parts.hostname, parts.port), timeout=10)
    request = (
        f"GET /api/stream/ HTTP/1.1\r\nHost: {parts.hostname}\r\n"
        f"Authorization: Bearer {token}\r\n\r\n"
    )
    conn.sendall(request.encode())
    received = b""
    while b"\r\n\r\n" not in received:
        chunk = conn.recv(4096)
        if not chunk:
            break
        received += chunk
    return conn, received


def test_a_stream_closed_by_its_client_gives_its_place_back(one_place_server, players):
    _token, raw = ApiToken.issue(players["anna"], "daphne")
    first, head = open_stream(one_place_server, raw)
    assert head.startswith(b"HTTP/1.1 200"), head[:200]
    assert b"application/x-ndjson" in head and b"no-store" in head
    second, refused = open_stream(one_place_server, raw)
    assert refused.startswith(b"HTTP/1.1 429"), refused[:200]
    second.close()
    first.close()  # the client goes away
    deadline = time.monotonic() + 10
    while True:
        again, head = open_stream(one_place_server, raw)
        again.close()
        if head.startswith(b"HTTP/1.1 200") or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert head.startswith(b"HTTP/1.1 200"), head[:200]
