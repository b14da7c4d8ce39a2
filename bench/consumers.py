"""Baseline consumers for bench/load.py, served only by bench.asgi.

They measure the stack itself: the same Daphne, the same websocket client and the same
JSON framing as a move, without the game (echo) or with only a committed insert.
"""

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.db import connection, transaction


class EchoConsumer(AsyncJsonWebsocketConsumer):
    async def receive_json(self, content, **kwargs):
        await self.send_json({"type": "ack", "client_id": content.get("client_id")})


@database_sync_to_async
def _insert():
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("INSERT INTO bench_ping (at) VALUES (now())")


class InsertConsumer(AsyncJsonWebsocketConsumer):
    async def receive_json(self, content, **kwargs):
        await _insert()
        await self.send_json({"type": "ack", "client_id": content.get("client_id")})
