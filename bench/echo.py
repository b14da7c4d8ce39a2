"""The echo socket of bench/load.py, served only by bench.load_site.

It measures the stack itself: the same Daphne, Channels, websocket client and JSON
framing as a move, without the game and without the database.
"""

from channels.generic.websocket import AsyncJsonWebsocketConsumer


class EchoConsumer(AsyncJsonWebsocketConsumer):
    async def receive_json(self, content, **kwargs):
        await self.send_json({"type": "ack", "client_id": content.get("client_id")})
