"""The site plus the baseline sockets of bench/load.py (never served in production)."""

from django.urls import path

from shanghaien.asgi import application, websocket_application

from .consumers import EchoConsumer, InsertConsumer

application.application_mapping["websocket"] = websocket_application(
    [
        path("ws/bench/echo/", EchoConsumer.as_asgi()),
        path("ws/bench/insert/", InsertConsumer.as_asgi()),
    ]
)
