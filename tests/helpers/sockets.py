"""Websockets in the test process: session cookies and Channels' communicator."""

from channels.testing import WebsocketCommunicator
from django.test import Client

ORIGIN = b"http://localhost"


def session_cookie(user) -> str:
    client = Client()
    client.force_login(user)
    return f"sessionid={client.cookies['sessionid'].value}"


def communicator(path: str, cookie: str | None, origin: bytes = ORIGIN) -> WebsocketCommunicator:
    from shanghaien.asgi import application

    headers = [(b"origin", origin), (b"host", b"localhost")]
    if cookie is not None:
        headers.append((b"cookie", cookie.encode()))
    return WebsocketCommunicator(application, path, headers=headers)
