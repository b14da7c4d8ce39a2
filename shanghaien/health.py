"""/healthz: is the database answering, and does the channel layer deliver a message?"""

from __future__ import annotations

import logging
import uuid

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import connection
from django.http import JsonResponse
from django.views.decorators.cache import never_cache

log = logging.getLogger(__name__)


def _database() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()
    return "ok"


async def _round_trip() -> str:
    layer = get_channel_layer()
    channel = await layer.new_channel("healthz.")
    token = uuid.uuid4().hex
    await layer.send(channel, {"type": "healthz", "token": token})
    message = await layer.receive(channel)
    return "ok" if message.get("token") == token else "wrong message"


@never_cache
def healthz(request):
    checks = {}
    for name, probe in (("database", _database), ("channel_layer", async_to_sync(_round_trip))):
        try:
            checks[name] = probe()
        except Exception as error:  # report, do not raise: this page exists to say what broke
            log.warning("health check %s failed: %s", name, error)
            checks[name] = f"failing: {type(error).__name__}"
    healthy = all(value == "ok" for value in checks.values())
    return JsonResponse(
        {"status": "ok" if healthy else "failing", **checks}, status=200 if healthy else 503
    )
