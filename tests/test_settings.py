"""DATABASE_URL and REDIS_URL switch between the embedded and the real parts."""

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

from channels.layers import get_channel_layer

ROOT = Path(__file__).resolve().parents[1]

PROBE = """
import django, json
django.setup()
from django.conf import settings
db = settings.DATABASES["default"]
print(json.dumps([db["ENGINE"], settings.CHANNEL_LAYERS["default"]["BACKEND"], db["CONN_MAX_AGE"]]))
"""


# The channel layer's name prefix, and the level its loggers show.
LAYER_PROBE = """
import django, json, logging
django.setup()
from django.conf import settings
config = settings.CHANNEL_LAYERS["default"].get("CONFIG", {})
level = logging.getLogger("channels_redis.pubsub").getEffectiveLevel()
print(json.dumps([config.get("prefix"), logging.getLevelName(level)]))
"""


def settings_with(probe=PROBE, **env):
    clean = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    out = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=ROOT,
        env={**clean, "DJANGO_SETTINGS_MODULE": "shanghaien.settings", **env},
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout)


def test_defaults_are_sqlite_and_the_in_memory_channel_layer():
    engine, layer, conn_max_age = settings_with()
    assert engine == "django.db.backends.sqlite3"
    assert layer == "channels.layers.InMemoryChannelLayer"
    assert conn_max_age == 0


def test_urls_switch_to_postgresql_and_redis():
    engine, layer, _ = settings_with(
        DATABASE_URL="postgres://postgres@127.0.0.1:5432/postgres",
        REDIS_URL="redis://127.0.0.1:6379/0",
    )
    assert engine == "django.db.backends.postgresql"
    assert layer == "channels_redis.pubsub.RedisPubSubChannelLayer"


def test_sites_on_different_redis_databases_use_different_channel_names():
    # Redis pub/sub channels are shared by all databases of a server: the names differ.
    first, _ = settings_with(LAYER_PROBE, REDIS_URL="redis://127.0.0.1:6379/0")
    second, _ = settings_with(LAYER_PROBE, REDIS_URL="redis://127.0.0.1:6379/5")
    assert first and second and first != second


def test_the_channel_layer_warns_whatever_the_log_level():
    redis = "redis://127.0.0.1:6379/0"
    assert settings_with(LAYER_PROBE, REDIS_URL=redis, DJANGO_LOG_LEVEL="ERROR")[1] == "WARNING"
    assert settings_with(LAYER_PROBE, REDIS_URL=redis, DJANGO_LOG_LEVEL="DEBUG")[1] == "DEBUG"


async def test_the_configured_channel_layer_delivers_group_messages():
    layer = get_channel_layer()
    channel = await layer.new_channel()
    group = f"test.{uuid.uuid4().hex}"
    await layer.group_add(group, channel)
    await layer.group_send(group, {"type": "hello", "n": 1})
    assert await layer.receive(channel) == {"type": "hello", "n": 1}
    await layer.group_discard(group, channel)
    expected = "Redis" if os.environ.get("REDIS_URL") else "InMemory"
    assert expected in type(layer).__name__
