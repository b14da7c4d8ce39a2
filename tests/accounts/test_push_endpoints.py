"""Where the server posts a push: only to a push service's name, read as the HTTP library
reads it, and only to a public address of that name, the one that was checked.

No test here sends anything off this machine: every name the server looks up is
answered by the test's own ``socket.getaddrinfo``, and whatever would connect is aimed
at a listening socket on 127.0.0.1 that must see no connection."""

from __future__ import annotations

import contextlib
import datetime as dt
import ipaddress
import json
import os
import socket
import ssl
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from unittest import mock
from urllib.parse import urlsplit

import pytest
import requests
from django.conf import settings as django_settings
from hypothesis import HealthCheck, example, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st
from urllib3.util import parse_url

from accounts.models import PushSubscription
from games.models import Notification
from games.notify import queue as notify
from games.notify.send import send_pushes
from shanghaien.lib import webpush

from ..helpers.push_service import Device, b64url, serve

# The kinds of endpoint an attacker tries, and variations of each.
HOSTILE = [
    "https://127.0.0.1/push",  # loopback
    "https://10.0.0.1/push",  # a private network
    "https://localhost/push",
    "https://169.254.169.254/latest/meta-data/",  # a cloud's metadata service
    "https://metadata.google.internal/computeMetadata/v1/",
    "https://127.0.0.1\\.fcm.googleapis.com/x",  # the library reads 127.0.0.1
    "https://fcm.googleapis.com@127.0.0.1/",  # a user, then the real host
    "https://127.0.0.1%2e.fcm.googleapis.com/x",  # a percent-escape in the host
    "https://fcm.googleapis.com:8443/x",
    "https://[::1]/push",
    "https://2130706433/push",  # 127.0.0.1 as one number
    "http://fcm.googleapis.com/x",
    "https://fcm.googleapis.com.evil.example/x",
    "https://fcm.googleapis.com./x",  # a trailing dot
    # the backslash towards each target
    "https://10.0.0.1\\.fcm.googleapis.com/x",
    "https://localhost\\.fcm.googleapis.com/x",
    "https://169.254.169.254\\.fcm.googleapis.com/x",
    "https://metadata.google.internal\\.push.services.mozilla.com/x",
    "https://2130706433\\.push.apple.com/x",
    "HTTPS://127.0.0.1\\.notify.windows.com/x",
    "https:\\\\fcm.googleapis.com/x",
    # users and escapes
    "https://user@fcm.googleapis.com/x",
    "https://fcm.googleapis.com:443@127.0.0.1/",
    "https://fcm.googleapis.com%40127.0.0.1/",
    "https://127.0.0.1%2efcm.googleapis.com/x",
    "https://%31%32%37.0.0.1/x",
    "https://127.0.0.1%5c.fcm.googleapis.com/x",
    # addresses in other spellings
    "https://127.1/x",
    "https://0x7f.0.0.1/x",
    "https://0x7f000001/x",
    "https://017700000001/x",
    "https://[::ffff:127.0.0.1]/x",
    "https://[fe80::1%25eth0]/x",
    "https://0/x",
    # ports and dots
    "https://fcm.googleapis.com:80/x",
    "https://fcm.googleapis.com:/x",
    "https://fcm.googleapis.com:443:8443/x",
    "https://x.fcm.googleapis.com./x",
    "https://x..fcm.googleapis.com/x",
    "https://.fcm.googleapis.com/x",
    "https://fcm.googleapis.com.:443/x",
]
LOCAL_BY_DESIGN = {"https://127.0.0.1/push", "https://localhost/push"}


@pytest.fixture
def production(settings):
    settings.PUSH_ALLOW_LOCAL_ENDPOINTS = False


class Listener:
    """A socket listening on 127.0.0.1 that accepts nothing by itself."""

    def __init__(self):
        self.socket = socket.create_server(("127.0.0.1", 0))
        self.socket.setblocking(False)
        self.port = self.socket.getsockname()[1]

    def connected(self) -> bool:
        """Whether anything connected since."""
        try:
            self.socket.accept()[0].close()
        except BlockingIOError:
            return False
        return True


@pytest.fixture
def listener():
    listening = Listener()
    yield listening
    listening.socket.close()


def answering(*addresses, port=None, calls=None):
    """A ``socket.getaddrinfo`` that answers every name with ``addresses`` (and the real
    one for numeric hosts, as a connection to an address looks it up too)."""
    real = socket.getaddrinfo

    def getaddrinfo(host, service, *args, **kwargs):
        if calls is not None:
            calls.append(host)
        try:
            ipaddress.ip_address(host)
        except ValueError:
            pass
        else:
            return real(host, service, *args, **kwargs)
        answers = []
        for address in addresses:
            if ":" in address:
                answers.append(
                    (socket.AF_INET6, socket.SOCK_STREAM, 6, "", (address, port or service, 0, 0))
                )
            else:
                answers.append(
                    (socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, port or service))
                )
        return answers

    return getaddrinfo


def send(endpoint: str) -> None:
    message = webpush.Message(payload={"title": "t"}, topic="t", ttl=60)
    device = Device()
    webpush.send(endpoint, device.p256dh, b64url(device.auth), webpush.public_key(), message)


# -- when a browser subscribes ----------------------------------------------------------


@pytest.mark.parametrize("endpoint", HOSTILE)
def test_check_endpoint_refuses_every_hostile_endpoint(production, endpoint):
    with pytest.raises(webpush.EndpointRefused):
        webpush.check_endpoint(endpoint)


@pytest.mark.parametrize("endpoint", sorted(set(HOSTILE) - LOCAL_BY_DESIGN))
def test_the_local_test_hosts_open_no_door_to_the_others(settings, endpoint):
    settings.PUSH_ALLOW_LOCAL_ENDPOINTS = True
    with pytest.raises(webpush.EndpointRefused):
        webpush.check_endpoint(endpoint)


@pytest.mark.django_db
@pytest.mark.parametrize("endpoint", HOSTILE)
def test_subscribing_a_hostile_endpoint_is_refused(production, clients, endpoint):
    body = Device().subscription(endpoint)
    response = clients["anna"].post(
        "/api/push/subscriptions/", json.dumps(body), content_type="application/json"
    )
    assert response.status_code == 400
    assert response.json()["error"] == {
        "code": "bad_endpoint",
        "message": "This is not the address of a browser's push service.",
    }
    assert not PushSubscription.objects.exists()


@pytest.mark.parametrize(
    "endpoint",
    [
        "https://fcm.googleapis.com/fcm/send/dGVzdA:APA91b-x_y",
        "https://FCM.googleapis.com:443/fcm/send/x",
        "https://updates.push.services.mozilla.com/wpush/v2/gAAAAA?x=%2B1",
        "https://web.push.apple.com/QGx",
        "https://wns2-db5p.notify.windows.com/w/?token=BQYAAA%3d%3d",
        "https://fcm.googleapis.com",
    ],
)
def test_the_push_services_endpoints_are_accepted(production, endpoint):
    assert webpush.check_endpoint(endpoint) == endpoint


# -- the same URLs, as the HTTP library reads them: fuzzed -------------------------------

PIECES = [
    "fcm.googleapis.com",
    "push.services.mozilla.com",
    "web.push.apple.com",
    "x.notify.windows.com",
    "127.0.0.1",
    "10.0.0.1",
    "localhost",
    "169.254.169.254",
    "metadata.google.internal",
    "[::1]",
    "2130706433",
    "0x7f.1",
    "evil.example",
    "",
    ".",
    "..",
    "\\",
    "/",
    "@",
    ":",
    ":443",
    ":8443",
    ":443@",
    "#",
    "?",
    "%2e",
    "%2E",
    "%40",
    "%5c",
    "%00",
    "%",
    "[",
    "]",
    " ",
    "\t",
    ";",
    ",",
    "_",
    "-",
    "user:pw@",
]
SCHEMES = ["https://", "HTTPS://", "http://", "https:/", "https:\\\\", "https:///", "//", ""]
TAILS = ["", "/", "/fcm/send/x", "/push?to=1", "#f", "?q=@127.0.0.1", "\\x"]
urls = st.builds(
    lambda scheme, pieces, tail: scheme + "".join(pieces) + tail,
    st.sampled_from(SCHEMES),
    st.lists(
        st.sampled_from(PIECES) | st.text(alphabet="abfcm.0127:@\\%/[]x-", max_size=6),
        min_size=1,
        max_size=6,
    ),
    st.sampled_from(TAILS),
)


def allowed(host: str) -> bool:
    return any(
        host == suffix or host.endswith("." + suffix)
        for suffix in django_settings.PUSH_SERVICE_HOSTS
    )


@hypothesis_settings(max_examples=600, deadline=None, suppress_health_check=list(HealthCheck))
@given(url=urls)
@example(url="https://127.0.0.1\\.fcm.googleapis.com/x")
@example(url="https://169.254.169.254\\.push.apple.com/")
@example(url="https://127.0.0.1%2e.fcm.googleapis.com/")
def test_whatever_is_accepted_the_library_reads_as_a_push_service_on_443(url):
    with mock.patch.object(django_settings, "PUSH_ALLOW_LOCAL_ENDPOINTS", False):
        try:
            webpush.check_endpoint(url)
        except webpush.EndpointRefused:
            return
    parsed = parse_url(url)
    assert parsed.scheme == "https" and parsed.auth is None and parsed.port in (None, 443)
    assert allowed(parsed.host), url
    prepared = urlsplit(requests.Request("POST", url).prepare().url)  # what the adapter reads
    assert (prepared.hostname, prepared.port, prepared.username) == (parsed.host, parsed.port, None)


@hypothesis_settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(url=urls | st.sampled_from(HOSTILE))
def test_no_variation_reaches_the_servers_own_network_at_send(url):
    """Every name resolves to a socket of this machine: each send is refused, and
    nothing connects to it."""
    listening = Listener()
    with contextlib.closing(listening.socket):
        with (
            mock.patch.object(django_settings, "PUSH_ALLOW_LOCAL_ENDPOINTS", False),
            mock.patch("socket.getaddrinfo", answering("127.0.0.1", port=listening.port)),
            pytest.raises(webpush.EndpointRefused),
        ):
            send(url)
        assert not listening.connected()


# -- when the server sends --------------------------------------------------------------


def test_a_push_service_name_resolving_to_loopback_is_refused_and_nothing_connects(
    production, listener, monkeypatch
):
    port = listener.port
    monkeypatch.setattr(webpush, "SEND_TIMEOUT", 2.0)  # the old path waited for TLS here
    monkeypatch.setattr(socket, "getaddrinfo", answering("127.0.0.1", port=port))
    with pytest.raises(webpush.EndpointRefused, match="non-public address 127.0.0.1"):
        send("https://fcm.googleapis.com/fcm/send/x")
    assert not listener.connected()


@pytest.mark.parametrize(
    "addresses",
    [
        ["127.0.0.1"],
        ["10.0.0.1"],
        ["172.16.5.4"],
        ["192.168.1.1"],
        ["169.254.169.254"],
        ["100.64.0.1"],  # shared address space
        ["0.0.0.0"],
        ["224.0.0.1"],
        ["240.0.0.1"],
        ["255.255.255.255"],
        ["::1"],
        ["::"],
        ["fe80::1"],
        ["fc00::1"],
        ["ff02::1"],
        ["::ffff:127.0.0.1"],
        ["::ffff:10.0.0.1"],
        ["2002:7f00:1::1"],  # 6to4 around 127.0.0.1
        ["142.250.185.10", "127.0.0.1"],  # one bad address is enough
        ["2a00:1450:4001:82b::200a", "fd00::1"],
    ],
)
def test_any_address_of_the_servers_own_networks_is_refused(production, monkeypatch, addresses):
    monkeypatch.setattr(socket, "getaddrinfo", answering(*addresses))
    with pytest.raises(webpush.EndpointRefused):
        webpush.resolve("fcm.googleapis.com", 443)


def test_a_public_address_is_the_one_connected_to(production, monkeypatch):
    monkeypatch.setattr(socket, "getaddrinfo", answering("142.250.185.10", "2a00:1450::200a"))
    assert webpush.resolve("fcm.googleapis.com", 443) == "142.250.185.10"


def test_a_name_that_does_not_resolve_now_is_tried_again_later(production, monkeypatch):
    def fails(*args, **kwargs):
        raise socket.gaierror(socket.EAI_AGAIN, "Temporary failure in name resolution")

    monkeypatch.setattr(socket, "getaddrinfo", fails)
    with pytest.raises(webpush.Failed, match="does not resolve"):
        send("https://fcm.googleapis.com/fcm/send/x")


def test_the_connection_goes_to_the_checked_address_and_tls_checks_the_name(monkeypatch):
    """The name ``push.test`` exists in no DNS: the post still arrives, at the address
    given, with the name as SNI and Host, and the certificate is checked for the name."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "push.test")])
    now = dt.datetime.now(dt.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(1)
        .not_valid_before(now - dt.timedelta(minutes=1))
        .not_valid_after(now + dt.timedelta(hours=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName("push.test")]), False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), True)
        .sign(key, hashes.SHA256())
    )
    folder = tempfile.mkdtemp()
    certificate_file, key_file = os.path.join(folder, "c.pem"), os.path.join(folder, "k.pem")
    with open(certificate_file, "wb") as out:
        out.write(certificate.public_bytes(serialization.Encoding.PEM))
    with open(key_file, "wb") as out:
        out.write(
            key.private_bytes(
                serialization.Encoding.PEM,
                serialization.PrivateFormat.PKCS8,
                serialization.NoEncryption(),
            )
        )
    seen = {}

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802 (the standard library's name)
            seen["host"] = self.headers["Host"]
            self.send_response(201)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args):
            pass

    server = HTTPServer(("127.0.0.1", 0), Handler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(certificate_file, key_file)

    def sni(sock, server_name, _context):
        seen["sni"] = server_name  # returning nothing goes on with the handshake

    context.sni_callback = sni
    server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]
    looked_up = []
    monkeypatch.setattr(socket, "getaddrinfo", answering(calls=looked_up))
    try:
        with webpush.PinnedSession("push.test", "127.0.0.1") as session:
            answer = session.post(f"https://push.test:{port}/x", verify=certificate_file)
        assert answer.status_code == 201
        assert seen == {"sni": "push.test", "host": f"push.test:{port}"}
        assert "push.test" not in looked_up  # the checked address, not a new look-up
        with (
            webpush.PinnedSession("other.test", "127.0.0.1") as session,
            pytest.raises(requests.exceptions.SSLError),
        ):
            session.post(f"https://other.test:{port}/x", verify=certificate_file)
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.django_db
def test_the_name_is_looked_up_once_and_a_changed_answer_is_not_followed(settings, monkeypatch):
    """DNS rebinding: the first answer is checked and connected to; a later answer
    (here another listening socket) is never asked for."""
    settings.PUSH_ALLOW_LOCAL_ENDPOINTS = True
    service, server = serve()
    port = int(service.url.rsplit(":", 1)[1])
    try:
        decoy = socket.create_server(("127.0.0.2", port))
    except OSError:
        pytest.skip("127.0.0.2 is not on the loopback here")
    decoy.setblocking(False)
    answers, real = iter(["127.0.0.1"]), socket.getaddrinfo
    looked_up = []

    def rebinding(host, service_port, *args, **kwargs):
        looked_up.append(host)
        if host == "localhost":
            address = next(answers, "127.0.0.2")
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, service_port))]
        return real(host, service_port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", rebinding)
    try:
        send(f"http://localhost:{port}/push/phone")
        assert looked_up.count("localhost") == 1
        (received,) = service.to("phone")
        assert received.headers["host"] == f"localhost:{port}"
        with pytest.raises(BlockingIOError):
            decoy.accept()
    finally:
        decoy.close()
        server.shutdown()
        server.server_close()


# -- the outbox: a refused endpoint is a dead device, not an error ---------------------


@pytest.mark.django_db
@pytest.mark.parametrize(
    "endpoint, reason",
    [
        ("https://127.0.0.1\\.fcm.googleapis.com/x", "device forgotten: characters"),
        ("https://fcm.googleapis.com/fcm/send/x", "device forgotten: fcm.googleapis.com "),
    ],
)
def test_a_refused_endpoint_in_the_outbox_forgets_the_device_once(
    production, game, listener, monkeypatch, endpoint, reason
):
    port = listener.port
    monkeypatch.setattr(webpush, "SEND_TIMEOUT", 2.0)
    monkeypatch.setattr(socket, "getaddrinfo", answering("127.0.0.1", port=port))
    player = game.to_move
    device = Device()
    PushSubscription.objects.create(  # stored before the server refused it
        user=player,
        endpoint=endpoint,
        p256dh=device.p256dh,
        auth=b64url(device.auth),
        vapid_key=webpush.public_key(),
    )
    player.refresh_from_db(fields=["push_devices"])
    notify.tell(player, "turn", "1", game)
    assert send_pushes() == 0
    row = Notification.objects.get(channel="push")
    assert (row.outcome, row.attempts, row.next_attempt_at) == ("failed", 1, None)
    assert row.detail.startswith(reason) and row.subscription is None
    assert not PushSubscription.objects.exists()
    assert send_pushes() == 0  # nothing left to try
    assert not listener.connected()
