"""Websockets in the test process: session cookies and Channels' communicator."""

from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.test import Client


def site_origin() -> bytes:
    """The Origin a page of the site sends: its SITE_URL (sockets from elsewhere are refused)."""
    return settings.SITE_URL.encode()


def session_cookie(user) -> str:
    client = Client()
    client.force_login(user)
    return f"sessionid={client.cookies['sessionid'].value}"


def communicator(
    path: str, cookie: str | None, origin: bytes | None = None
) -> WebsocketCommunicator:
    """A socket as the site's page opens it; ``origin`` another page's (b"": none sent)."""
    from shanghaien.asgi import application

    origin = site_origin() if origin is None else origin
    headers = [(b"origin", origin)] if origin else []
    headers.append((b"host", b"localhost"))
    if cookie is not None:
        headers.append((b"cookie", cookie.encode()))
    return WebsocketCommunicator(application, path, headers=headers)
