"""The HTTP streams through the site's own ASGI application, as Daphne serves it: each
stream a ``StreamClient`` that reads its lines and can go away (``http.disconnect``)."""

from __future__ import annotations

import json

import pytest
from channels.layers import channel_layers
from channels.testing import ApplicationCommunicator

from accounts.models import ApiToken


class StreamClient:
    """One request to the ASGI application: its status and headers, then its body a
    line at a time (``b""`` lines are the keep-alives)."""

    def __init__(
        self, path: str, token: str | None = None, query: str = "", cookie=None, method="GET"
    ):
        from shanghaien.asgi import application

        headers = [(b"host", b"localhost")]
        if token is not None:
            headers.append((b"authorization", f"Bearer {token}".encode()))
        if cookie is not None:
            headers.append((b"cookie", cookie.encode()))
        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": method,
            "scheme": "http",
            "path": path,
            "raw_path": path.encode(),
            "query_string": query.encode(),
            "root_path": "",
            "headers": headers,
            "client": ("127.0.0.1", 50000),
            "server": ("localhost", 80),
        }
        self.communicator = ApplicationCommunicator(application, scope)
        self.buffer = b""
        self.ended = False
        self.status = None
        self.headers = {}

    async def open(self, timeout: float = 10) -> int:
        await self.communicator.send_input({"type": "http.request", "body": b""})
        start = await self.communicator.receive_output(timeout)
        assert start["type"] == "http.response.start"
        self.status = start["status"]
        self.headers = {k.decode().lower(): v.decode() for k, v in start["headers"]}
        return self.status

    async def body(self, timeout: float = 10) -> bytes:
        """The whole body of an answer that is not a stream."""
        while not self.ended:
            await self._more(timeout)
        body, self.buffer = self.buffer, b""
        return body

    async def _more(self, timeout: float) -> None:
        message = await self.communicator.receive_output(timeout)
        assert message["type"] == "http.response.body", message
        self.buffer += message.get("body", b"")
        if not message.get("more_body", False):
            self.ended = True

    async def raw_line(self, timeout: float = 10) -> bytes | None:
        """The next line (without its newline), None once the stream has ended."""
        while b"\n" not in self.buffer:
            if self.ended:
                return None
            await self._more(timeout)
        text, _, self.buffer = self.buffer.partition(b"\n")
        return text

    async def line(self, timeout: float = 10, keepalives: bool = False) -> dict | None:
        """The next JSON line (keep-alives skipped unless asked for: then ``{}``)."""
        while True:
            text = await self.raw_line(timeout)
            if text is None:
                return None
            if text:
                return json.loads(text)
            if keepalives:
                return {}

    async def lines_until(self, test, timeout: float = 10) -> list[dict]:
        """Lines up to and including the first that passes ``test``."""
        seen = []
        while True:
            found = await self.line(timeout)
            assert found is not None, f"the stream ended before; seen: {seen}"
            seen.append(found)
            if test(found):
                return seen

    async def rest(self, timeout: float = 10) -> list[dict]:
        """Every line up to the stream's end."""
        seen = []
        while (found := await self.line(timeout)) is not None:
            seen.append(found)
        return seen

    async def nothing_more(self, seconds: float = 0.3) -> bool:
        """Whether nothing comes within ``seconds`` (the stream stays open: a timeout of
        ``receive_output`` would cancel the application)."""
        return b"\n" not in self.buffer and await self.communicator.receive_nothing(seconds)

    async def disconnect(self, timeout: float = 10) -> None:
        await self.communicator.send_input({"type": "http.disconnect"})
        await self.communicator.wait(timeout)


@pytest.fixture(autouse=True)
def fresh_channel_layer():
    """Each test's own channel layer: a stream a failed test left open waits on a loop
    that is gone, and the in-memory layer would stumble on it in the next test."""
    channel_layers.backends.clear()
    yield
    channel_layers.backends.clear()


@pytest.fixture
def keepalive(settings):
    settings.STREAM_KEEPALIVE_SECONDS = 0.2
    return settings


@pytest.fixture
def tokens(players):
    """A raw token for each player, scopes read and play."""
    return {name: ApiToken.issue(user, "stream")[1] for name, user in players.items()}
