"""Web Push: one message to one browser's push service (RFC 8030), encrypted for that
browser (RFC 8291, ``aes128gcm``) and signed with the server's VAPID key (RFC 8292), by
pywebpush; and the checks that keep the server posting only to push services.

An endpoint is a URL the browser's push service gave it; the browser hands it to us, so
it is as untrusted as any input. The server posts only to ``https`` endpoints of the
push services in ``settings.PUSH_SERVICE_HOSTS`` (or, with ``PUSH_ALLOW_LOCAL_ENDPOINTS``,
to ``http://127.0.0.1`` and ``http://localhost``, for the tests), reading the URL as the
HTTP library does. Before each send it looks the name up, refuses it unless every
address is a public one, and connects to the address it checked; it follows no redirect
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
import re
import socket
from dataclasses import dataclass
from email.utils import parseaddr
from functools import cache
from urllib.parse import urlsplit

import requests
from cryptography.hazmat.primitives.asymmetric import ec
from django.conf import settings
from py_vapid import Vapid02
from pywebpush import WebPushException, webpush
from requests.adapters import HTTPAdapter
from urllib3.exceptions import LocationParseError
from urllib3.util import parse_url

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
    """``url`` if the server may post to it, else ``EndpointRefused`` saying why.

    The host is read twice, as the sender's HTTP library reads it (``requests``, which
    pywebpush posts with: urllib3's ``parse_url``, then the prepared request's URL), and
    both readings must agree with the plain text of the URL: a DNS name of letters,
    digits, dots and hyphens, no IP address in any form, no user, no percent-escape, no
    backslash, port 443, at one of ``settings.PUSH_SERVICE_HOSTS``."""
    if not isinstance(url, str) or not url or len(url) > ENDPOINT_MAX:
        raise EndpointRefused("length")
    if not url.isascii() or any(c.isspace() or ord(c) < 32 or c == "\\" for c in url):
        raise EndpointRefused("characters")
    if not url.lower().startswith(("https://", "http://")):
        raise EndpointRefused("scheme")
    written = _AUTHORITY.match(url)
    if written is None:
        raise EndpointRefused("host")
    scheme, host, port = written["scheme"].lower(), written["host"].lower(), written["port"]
    port = int(port) if port else None
    if _read_by_the_sender(url) != (scheme, host, port):
        raise EndpointRefused("host")
    if settings.PUSH_ALLOW_LOCAL_ENDPOINTS and host in LOCAL_HOSTS:
        return url
    if scheme != "https" or port not in (None, 443):
        raise EndpointRefused("scheme")
    if not _dns_name(host) or not _push_service(host):
        raise EndpointRefused("host")
    return url


# The scheme and the authority as written, up to the path, the query or the fragment.
_AUTHORITY = re.compile(
    r"(?P<scheme>https?)://(?P<host>[A-Za-z0-9.-]+)(?::(?P<port>[0-9]{1,5}))?(?=[/?#]|\Z)",
    re.IGNORECASE,
)
_LABEL = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\Z")


def _read_by_the_sender(url: str) -> tuple[str, str, int | None] | None:
    """The scheme, host and port the HTTP library will connect to; None if it reads no
    URL, a user or a host other than the prepared request's."""
    try:
        parsed = parse_url(url)
        prepared = requests.Request("POST", url).prepare().url
        again = urlsplit(prepared)
        if parsed.auth is not None or again.username is not None or again.password is not None:
            return None
        if (again.hostname, again.port) != (parsed.host, parsed.port):
            return None
    except (LocationParseError, requests.RequestException, ValueError):
        return None
    return (parsed.scheme or "").lower(), (parsed.host or "").lower(), parsed.port


def _dns_name(host: str) -> bool:
    """A name to look up: no IP address in any spelling (``127.1``, ``2130706433``,
    ``0x7f.1``), as a top-level label never starts with a digit."""
    labels = host.split(".")
    if len(host) > 253 or len(labels) < 2 or not all(_LABEL.match(x) for x in labels):
        return False
    if not labels[-1][0].isalpha():
        return False
    try:
        socket.inet_aton(host)
    except OSError:
        return True
    return False


def _push_service(host: str) -> bool:
    for suffix in settings.PUSH_SERVICE_HOSTS:
        suffix = suffix.lower().strip(".")
        if suffix and (host == suffix or host.endswith("." + suffix)):
            return True
    return False


def public_address(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    """Whether ``address`` is one of the internet's, not the server's own network:
    never private, loopback, link-local, multicast, reserved or unspecified, nor an
    IPv6 address carrying such an IPv4 one (mapped, 6to4, Teredo)."""
    if address.version == 6:
        carried = [address.ipv4_mapped, address.sixtofour]
        carried += list(address.teredo or ())
        if any(inner is not None and not public_address(inner) for inner in carried):
            return False
    return address.is_global and not (
        address.is_private
        or address.is_loopback
        or address.is_link_local
        or address.is_multicast
        or address.is_reserved
        or address.is_unspecified
    )


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


def resolve(host: str, port: int) -> str:
    """The address to connect to for ``host``: its first address, once every address
    the name has is a public one (for the local test hosts: a loopback one).
    ``EndpointRefused`` if any is not, ``Failed`` if the name does not resolve now."""
    local = settings.PUSH_ALLOW_LOCAL_ENDPOINTS and host in LOCAL_HOSTS
    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as error:
        raise Failed(f"{host} does not resolve: {error}") from None
    addresses = []
    for *_, sockaddr in found:
        try:
            address = ipaddress.ip_address(sockaddr[0])
        except ValueError:
            raise EndpointRefused(f"{host} resolves to {sockaddr[0]!r}") from None
        if not (address.is_loopback if local else public_address(address)):
            raise EndpointRefused(f"{host} resolves to a non-public address {address}")
        addresses.append(str(address))
    if not addresses:
        raise Failed(f"{host} has no address")
    return addresses[0]


class _NotTheCheckedHost(Exception):
    """The HTTP library was about to connect to a host other than the one checked."""


class _PinnedAdapter(HTTPAdapter):
    """Connects to the address checked by ``resolve`` and nowhere else: the name is not
    looked up again between the check and the connection, so a name that changes its
    address in between (DNS rebinding) still reaches the checked one. TLS still
    verifies the certificate for the name, which is also the SNI and the Host header."""

    def __init__(self, host: str, address: str):
        self.host, self.address = host, address
        super().__init__(max_retries=0)

    def build_connection_pool_key_attributes(self, request, verify, cert=None):
        host_params, pool_kwargs = super().build_connection_pool_key_attributes(
            request, verify, cert
        )
        if (host_params.get("host") or "").lower() != self.host:
            raise _NotTheCheckedHost(host_params.get("host"))
        host_params["host"] = self.address
        if host_params.get("scheme") == "https":
            pool_kwargs["server_hostname"] = self.host
            pool_kwargs["assert_hostname"] = self.host
        return host_params, pool_kwargs

    def add_headers(self, request, **kwargs):
        request.headers["Host"] = urlsplit(request.url).netloc


class PinnedSession(requests.Session):
    """No redirect followed, no proxy from the environment, and every connection to the
    one checked address: the request goes to the endpoint and nowhere else."""

    def __init__(self, host: str, address: str):
        super().__init__()
        self.trust_env = False
        self.max_redirects = 0
        adapter = _PinnedAdapter(host, address)
        self.mount("https://", adapter)
        self.mount("http://", adapter)

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
    endpoint the server does not post to (any more), or whose name resolves to an
    address that is not the internet's."""
    check_endpoint(endpoint)
    vapid = keys().get(vapid_key)
    if vapid is None:
        raise Gone("subscribed with a retired key")
    data = json.dumps(message.payload, ensure_ascii=False, separators=(",", ":"))
    if len(data.encode()) > PAYLOAD_MAX:
        raise ValueError("push payload too large")
    target = parse_url(endpoint)  # as checked: the host and port the library connects to
    address = resolve(target.host, target.port or (443 if target.scheme == "https" else 80))
    info = {"endpoint": endpoint, "keys": {"p256dh": p256dh, "auth": auth}}
    headers = {"Topic": message.topic, "Urgency": message.urgency}
    with PinnedSession(target.host, address) as session:
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
        except _NotTheCheckedHost:
            raise EndpointRefused("the HTTP library read another host") from None
        except requests.RequestException as error:
            raise Failed(f"{type(error).__name__}: {error}") from None
