"""Websocket routes (see docs/protocol.md)."""

import os

from django.urls import path

from . import consumers

websocket_urlpatterns = [
    path("ws/games/<int:game_id>/", consumers.GameConsumer.as_asgi()),
    path("ws/lobby/", consumers.LobbyConsumer.as_asgi()),
]

if os.environ.get("SHANGHAIEN_BENCH") == "1":  # baselines for bench/load.py only
    from bench.consumers import EchoConsumer, InsertConsumer

    websocket_urlpatterns += [
        path("ws/bench/echo/", EchoConsumer.as_asgi()),
        path("ws/bench/insert/", InsertConsumer.as_asgi()),
    ]
