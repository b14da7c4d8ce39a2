"""ASGI entry point: Django for HTTP, Channels for the game and lobby websockets, both
behind the access log (which also answers /metrics)."""

import gc
import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "shanghaien.settings")
django_asgi_app = get_asgi_application()  # sets Django up before the consumers are imported

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from prometheus_client import REGISTRY  # noqa: E402

from games.backlog import BacklogCollector  # noqa: E402
from games.routing import websocket_urlpatterns  # noqa: E402
from shanghaien.lib.access_log import AccessLog  # noqa: E402
from shanghaien.lib.metrics import Exposition  # noqa: E402
from shanghaien.lib.sockets import SiteOriginValidator, SocketUser  # noqa: E402


def websocket_application(more_routes=()):
    """The websocket side: the site's routes (and ``more_routes``), behind the access
    log, the origin check (a cookie's socket from the site's own origins only:
    ``SiteOriginValidator``) and the login by token or session (read once, as the socket
    connects: ``SocketUser``)."""
    routes = [*websocket_urlpatterns, *more_routes]
    return AccessLog(SiteOriginValidator(SocketUser(URLRouter(routes))))


# The process's own series (requests, sockets, moves) and the backlog read from the
# database, which every web process shows: the worker's lag matters most when the worker
# itself is down.
metrics = Exposition([REGISTRY, BacklogCollector()])

application = ProtocolTypeRouter(
    {
        "http": AccessLog(django_asgi_app, metrics),
        "websocket": websocket_application(),
    }
)

# What is loaded by now (Django, the apps, the routes: some hundred thousand objects)
# lives as long as the process. Kept out of the collector's full passes, whose pauses
# hold up every socket of the process, they cost a third to a half as long
# (docs/performance.md).
gc.freeze()
# A young collection after 10,000 new objects rather than 700. With 3,000 idle sockets
# the default thresholds ran a full pass every few seconds of a reconnect storm or of
# moves, each holding every socket of the process up for 0.1 to 1.4 s (bench/socket_load.py
# on a busy two-core machine); at 10,000 the same runs had no full pass at all and spent
# a half to a quarter as long collecting (docs/performance.md).
gc.set_threshold(10_000, 10, 10)
