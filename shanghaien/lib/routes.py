"""Which route a request path took, and how that path may be written down."""

from __future__ import annotations

import logging

from django.conf import settings
from django.urls import Resolver404, resolve

# URL parts that are secrets: the one-click unsubscribe token, the password reset and
# email confirmation keys. A path holding one is written down as its route pattern.
SECRET_PARTS = frozenset({"token", "key", "uidb36", "uidb64"})

UNMATCHED = "unmatched"
STATIC = "static"


def route_of(path: str) -> tuple[str, str]:
    """(the route pattern ``path`` resolves to, the path as logs and reports may show it).

    The pattern, not the path, labels metrics: a handful of routes rather than one
    series per game. A path that resolves to no route is ``"unmatched"`` (anyone can
    send any path); one under STATIC_URL is ``"static"``.
    """
    if settings.STATIC_URL and path.startswith(settings.STATIC_URL):
        return STATIC, path
    try:
        match = resolve(path)
    except Resolver404:
        return UNMATCHED, path
    except Exception:  # a converter that fails on strange input: no route either
        return UNMATCHED, path
    route = "/" + match.route
    if SECRET_PARTS.intersection(match.kwargs):
        return route, route
    return route, path


class RequestShown(logging.Filter):
    """Django's own request lines (``django.request``, ``django.security``) name the path a
    request took, and carry the request itself, which a JSON formatter writes out whole
    (``<ASGIRequest: GET '/path?query'>``). This writes both as the access log does: the
    method and the path, never the query string, and the route pattern for a path that
    holds a secret."""

    def filter(self, record: logging.LogRecord) -> bool:
        request = getattr(record, "request", None)
        path = getattr(request, "path", None)
        if not isinstance(path, str):
            return True
        try:
            shown = route_of(path)[1]
        except Exception:  # settings or routes not ready: nothing but the path is shown
            shown = path
        record.request = f"{getattr(request, 'method', '')} {shown}".strip()
        if isinstance(record.args, tuple) and path != shown:
            record.args = tuple(shown if arg == path else arg for arg in record.args)
        return True
