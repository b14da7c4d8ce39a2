"""ASGI entry point: Django for HTTP, Channels for the game and lobby websockets."""

import gc
import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "shanghaien.settings")
django_asgi_app = get_asgi_application()  # sets Django up before the consumers are imported

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402

from games.routing import websocket_urlpatterns  # noqa: E402


def websocket_application(more_routes=()):
    """The websocket side: the site's routes (and ``more_routes``), behind the origin
    check and the session login."""
    routes = [*websocket_urlpatterns, *more_routes]
    return AllowedHostsOriginValidator(AuthMiddlewareStack(URLRouter(routes)))


application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": websocket_application(),
    }
)

# What is loaded by now (Django, the apps, the routes: some hundred thousand objects)
# lives as long as the process. Kept out of the collector's full passes, whose pauses
# hold up every socket of the process, they cost a third to a half as long
# (docs/performance.md).
gc.freeze()
