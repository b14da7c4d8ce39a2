"""A push service of the tests' own: an HTTP server on 127.0.0.1 that takes the server's
real, encrypted Web Push requests, and devices whose keys the test made, so that it can
decrypt what arrived (RFC 8291, aes128gcm) and check the VAPID signature (RFC 8292)."""

from __future__ import annotations

import base64
import json
import os
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import http_ece
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@dataclass
class Received:
    path: str
    headers: dict  # lower-case names
    body: bytes


@dataclass
class PushService:
    """Answers each POST with ``status[path]`` (201 by default) and keeps what came."""

    url: str = ""
    received: list[Received] = field(default_factory=list)
    status: dict[str, int] = field(default_factory=dict)
    location: str = ""  # the Location of a 3xx answer

    def endpoint(self, name: str) -> str:
        return f"{self.url}/push/{name}"

    def to(self, name: str) -> list[Received]:
        return [r for r in self.received if r.path == f"/push/{name}"]


def serve() -> tuple[PushService, ThreadingHTTPServer]:
    service = PushService()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802 (the standard library's name)
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length)
            headers = {k.lower(): v for k, v in self.headers.items()}
            service.received.append(Received(self.path, headers, body))
            status = service.status.get(self.path, 201)
            self.send_response(status)
            if 300 <= status < 400:
                self.send_header("Location", service.location)
            self.send_header("Content-Length", "0")
            self.end_headers()

        do_GET = do_POST  # noqa: N815 (a redirect followed as GET would come here)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    service.url = f"http://127.0.0.1:{server.server_address[1]}"
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return service, server


class Device:
    """A browser's side of a subscription: its key pair and auth secret."""

    def __init__(self):
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.auth = os.urandom(16)

    @property
    def p256dh(self) -> str:
        point = self.key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        return b64url(point)

    def subscription(self, endpoint: str) -> dict:
        """What ``PushSubscription.toJSON()`` gives in a browser."""
        return {
            "endpoint": endpoint,
            "expirationTime": None,
            "keys": {"p256dh": self.p256dh, "auth": b64url(self.auth)},
        }

    def decrypt(self, received: Received) -> dict:
        assert received.headers["content-encoding"] == "aes128gcm"
        plain = http_ece.decrypt(
            received.body, private_key=self.key, auth_secret=self.auth, version="aes128gcm"
        )
        return json.loads(plain)


def vapid_claims(received: Received, public_key: str) -> dict:
    """The claims of the request's VAPID ``Authorization`` header, once its signature is
    checked against ``public_key`` (the server's, base64url); AssertionError otherwise."""
    scheme, _, params = received.headers["authorization"].partition(" ")
    assert scheme == "vapid", scheme
    values = dict(part.strip().split("=", 1) for part in params.split(","))
    assert values["k"] == public_key
    header, payload, signature = values["t"].split(".")
    assert json.loads(unb64url(header)) == {"typ": "JWT", "alg": "ES256"}
    raw = unb64url(signature)
    der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    key = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64url(public_key))
    try:
        key.verify(der, f"{header}.{payload}".encode(), ec.ECDSA(hashes.SHA256()))
    except InvalidSignature:
        raise AssertionError("the VAPID signature does not verify") from None
    claims = json.loads(unb64url(payload))
    assert time.time() < claims["exp"] <= time.time() + 24 * 3600
    return claims
