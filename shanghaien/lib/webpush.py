"""Web Push: one message to one browser's push service (RFC 8030), encrypted for that
browser (RFC 8291, ``aes128gcm``) and signed with the server's VAPID key (RFC 8292), by
pywebpush; and the checks that keep the server posting only to push services.

An endpoint is a URL the browser's push service gave it; the browser hands it to us, so
it is as untrusted as any input. The server posts only to ``https`` endpoints of the
push services in ``settings.PUSH_SERVICE_HOSTS`` (or, with ``PUSH_ALLOW_LOCAL_ENDPOINTS``,
to ``http://127.0.0.1`` and ``http://localhost``, for the tests), follows no redirect
and uses no proxy from the environment, so no request ever goes anywhere else.

Keys: ``VAPID_PRIVATE_KEY`` signs; each subscription remembers the public key it was made
with, and a retired key (``VAPID_OLD_PRIVATE_KEYS``) still signs for its subscriptions
until their browsers subscribe again with the new one.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import ipaddress
import json
from dataclasses import dataclass
from email.utils import parseaddr
from functools import cache
from urllib.parse import urlsplit

import requests
from cryptography.hazmat.primitives.asymmetric import ec
from django.conf import settings
from py_vapid import Vapid02
from pywebpush import WebPushException, webpush

ENDPOINT_MAX = 1024  # the push services' endpoints are a few hundred characters
PAYLOAD_MAX = 3000  # what the push services accept, less the encryption's overhead
SEND_TIMEOUT = 10.0  # seconds, to connect and to read the answer
TTL_MAX = 28 * 24 * 3600  # the push services keep a message at most about four weeks
LOCAL_HOSTS = ("127.0.0.1", "localhost")


class EndpointRefused(ValueError):
    """An endpoint the server will not post to, or keys it cannot encrypt for."""


class Gone(Exception):
    """The push service no longer knows the subscription (404 or 410): forget it."""


class Failed(Exception):
    """The message did not get through this time (network, 5xx, 429, anything else)."""


def b64url_decode(text: str) -> bytes:
    if not isinstance(text, str) or not text.isascii():
        raise ValueError("not base64url")
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def check_endpoint(url: str) -> str:
    """``url`` if the server may post to it, else ``EndpointRefused`` saying why."""
    if not isinstance(url, str) or not url or len(url) > ENDPOINT_MAX:
        raise EndpointRefused("length")
    if not url.isascii() or any(c.isspace() or ord(c) < 32 for c in url):
        raise EndpointRefused("characters")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise EndpointRefused("not a URL") from None
    host = (parts.hostname or "").lower()
    if parts.username is not None or parts.password is not None or not host:
        raise EndpointRefused("host")
    if settings.PUSH_ALLOW_LOCAL_ENDPOINTS and host in LOCAL_HOSTS:
        if parts.scheme in ("http", "https"):
            return url
        raise EndpointRefused("scheme")
    if parts.scheme != "https" or port not in (None, 443):
        raise EndpointRefused("scheme")
    if _is_ip_address(host) or not _push_service(host):
        raise EndpointRefused("host")
    return url


def _is_ip_address(host: str) -> bool:
    try:
        ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False
    return True


def _push_service(host: str) -> bool:
    for suffix in settings.PUSH_SERVICE_HOSTS:
        suffix = suffix.lower().lstrip(".")
        if host == suffix or host.endswith("." + suffix):
            return True
    return False


def check_keys(p256dh: str, auth: str) -> tuple[str, str]:
    """The subscription's keys, base64url without padding, if they can be encrypted for:
    ``p256dh`` a point of the P-256 curve (65 bytes, uncompressed), ``auth`` 16 bytes."""
    try:
        point, secret = b64url_decode(p256dh), b64url_decode(auth)
    except (ValueError, binascii.Error):
        raise EndpointRefused("keys") from None
    if len(point) != 65 or point[0] != 4 or len(secret) != 16:
        raise EndpointRefused("keys")
    try:
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)
    except ValueError:
        raise EndpointRefused("keys") from None
    return b64url(point), b64url(secret)


# -- the server's keys ------------------------------------------------------------------


def _vapid(private: str) -> Vapid02:
    """A key from its raw form (base64url of the 32-byte private number, as
    ``manage.py vapid_keys`` prints it) or PEM."""
    private = private.strip()
    if private.startswith("-----BEGIN"):
        return Vapid02.from_pem(private.encode())
    return Vapid02.from_raw(private.encode())


def public_key_of(vapid: Vapid02) -> str:
    """The application server key a browser subscribes with: the public point, base64url."""
    from cryptography.hazmat.primitives import serialization

    raw = vapid.public_key.public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    return b64url(raw)


def _development_key() -> str:
    """A key derived from the development secret key: ``make run`` and the tests can push
    without configuring anything, and production (its own secret key) never uses it."""
    seed = hashlib.sha256(b"vapid:" + settings.SECRET_KEY.encode()).digest()
    order = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551  # P-256's n
    number = int.from_bytes(seed, "big") % (order - 1) + 1
    return b64url(number.to_bytes(32, "big"))


@cache
def _keys(current: str, old: tuple[str, ...]) -> dict[str, Vapid02]:
    keys = {}
    for private in (current, *old):
        vapid = _vapid(private)
        keys.setdefault(public_key_of(vapid), vapid)
    return keys


def keys() -> dict[str, Vapid02]:
    """The signing keys by their public key, the current one first; empty: no push."""
    current = settings.VAPID_PRIVATE_KEY
    if not current and getattr(settings, "DEV_SECRET_KEY", None) == settings.SECRET_KEY:
        current = _development_key()
    if not current:
        return {}
    return _keys(current, tuple(settings.VAPID_OLD_PRIVATE_KEYS))


def public_key() -> str:
    """The key browsers subscribe with now; "" when this server sends no push."""
    return next(iter(keys()), "")


def subject() -> str:
    """Who runs the server, for the push services (a mailto: or https: URL)."""
    if settings.VAPID_SUBJECT:
        return settings.VAPID_SUBJECT
    address = parseaddr(settings.DEFAULT_FROM_EMAIL)[1] or "noreply@localhost"
    return f"mailto:{address}"


# -- sending ----------------------------------------------------------------------------


class _Session(requests.Session):
    """No redirect followed and no proxy from the environment: the request goes to the
    endpoint and nowhere else."""

    def __init__(self):
        super().__init__()
        self.trust_env = False
        self.max_redirects = 0

    def request(self, *args, **kwargs):
        kwargs["allow_redirects"] = False
        return super().request(*args, **kwargs)


@dataclass(frozen=True)
class Message:
    payload: dict  # JSON, at most PAYLOAD_MAX bytes encoded
    topic: str  # a newer message of the same topic replaces one not yet delivered
    ttl: int  # seconds the push service keeps it for an offline device
    urgency: str = "normal"  # very-low, low, normal, high


def send(endpoint: str, p256dh: str, auth: str, vapid_key: str, message: Message) -> None:
    """Post ``message`` to one subscription. Returns when the push service took it (201);
    ``Gone`` when the subscription no longer exists there or its key is retired;
    ``Failed`` for anything else, to try again later; ``EndpointRefused`` for an
    endpoint the server does not post to (any more)."""
    check_endpoint(endpoint)
    vapid = keys().get(vapid_key)
    if vapid is None:
        raise Gone("subscribed with a retired key")
    data = json.dumps(message.payload, ensure_ascii=False, separators=(",", ":"))
    if len(data.encode()) > PAYLOAD_MAX:
        raise ValueError("push payload too large")
    info = {"endpoint": endpoint, "keys": {"p256dh": p256dh, "auth": auth}}
    headers = {"Topic": message.topic, "Urgency": message.urgency}
    with _Session() as session:
        try:
            webpush(
                info,
                data,
                vapid_private_key=vapid,
                vapid_claims={"sub": subject()},  # a new dict: webpush adds aud and exp
                ttl=max(0, min(int(message.ttl), TTL_MAX)),
                headers=headers,
                timeout=SEND_TIMEOUT,
                requests_session=session,
            )
        except WebPushException as error:
            status = error.response.status_code if error.response is not None else None
            if status in (404, 410):
                raise Gone(f"the push service answered {status}") from None
            raise Failed(f"the push service answered {status or error}") from None
        except requests.RequestException as error:
            raise Failed(f"{type(error).__name__}: {error}") from None
