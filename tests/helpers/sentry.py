"""An error-reporting service of the tests' own: an HTTP server on 127.0.0.1 that takes
what sentry-sdk sends (envelopes) and keeps them, raw and as events."""

from __future__ import annotations

import gzip
import json
import threading
import time
import zlib
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Envelope:
    path: str
    raw: bytes  # decompressed: every byte the server would have received

    @property
    def items(self) -> list[tuple[dict, bytes]]:
        """(item header, payload) of each item. The format: the envelope's header line,
        then for each item a header line and its payload (``length`` bytes if the header
        says, else up to the end of the line)."""
        raw, items = self.raw, []
        position = raw.index(b"\n") + 1
        while position < len(raw):
            end = _line_end(raw, position)
            line, position = raw[position:end], end + 1
            if not line.strip():
                continue
            header = json.loads(line)
            length = header.get("length")
            end = _line_end(raw, position) if length is None else position + length
            items.append((header, raw[position:end]))
            position = end + 1
        return items

    @property
    def events(self) -> list[dict]:
        return [json.loads(payload) for header, payload in self.items if header["type"] == "event"]


@dataclass
class ErrorService:
    url: str = ""
    envelopes: list[Envelope] = field(default_factory=list)

    @property
    def dsn(self) -> str:
        return self.url.replace("http://", "http://public-key@", 1) + "/42"

    @property
    def events(self) -> list[dict]:
        return [event for envelope in self.envelopes for event in envelope.events]

    def wait_for(self, matches, timeout: float = 15) -> dict:
        """The first event for which ``matches(event)`` holds, once it has arrived."""
        deadline = time.monotonic() + timeout
        while True:
            found = [event for event in self.events if matches(event)]
            if found:
                return found[0]
            if time.monotonic() > deadline:
                kinds = [exception_types(event) for event in self.events]
                raise AssertionError(f"no such event in {timeout} s; arrived: {kinds}")
            time.sleep(0.1)


def _line_end(raw: bytes, start: int) -> int:
    end = raw.find(b"\n", start)
    return len(raw) if end == -1 else end


def exception_types(event: dict) -> list[str]:
    return [value.get("type") for value in (event.get("exception") or {}).get("values", [])]


@contextmanager
def error_service():
    """An ErrorService listening on 127.0.0.1 for the length of the block."""
    service = ErrorService()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802 (the standard library's name)
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            encoding = (self.headers.get("Content-Encoding") or "").lower()
            if encoding == "gzip":
                body = gzip.decompress(body)
            elif encoding == "deflate":
                body = zlib.decompress(body)
            elif encoding:
                raise ValueError(f"cannot read {encoding}")
            service.envelopes.append(Envelope(self.path, body))
            self.send_response(200)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"{}")

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    service.url = f"http://127.0.0.1:{server.server_address[1]}"
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield service
    finally:
        server.shutdown()
        server.server_close()
