"""While the database is away: a request answers 503 with ``Retry-After`` at once (JSON in
the API's error envelope under /api/, a short page elsewhere) instead of waiting or
failing with a 500.

How long a request may wait is bounded in settings: a new connection gives up after
``connect_timeout`` and a request waits at most the pool's ``timeout`` for one
(``DATABASE_WAIT_SECONDS``); not bounded is a query on a connection lent before the
database hung (docs/operations.md). Then Django raises ``OperationalError`` (psycopg_pool's
``PoolTimeout`` is one too) or ``InterfaceError`` (a connection the server dropped),
which these answers turn into a 503: from a view (``DatabaseOutageMiddleware``), from the
API's own error handling (``shanghaien.api_site``), and from a middleware that needed the
database before the view (the 500 handler, ``server_error``).
"""

from __future__ import annotations

import logging
import sys

from django.db import InterfaceError, OperationalError
from django.http import HttpResponse, JsonResponse
from django.template import loader
from django.utils.translation import gettext as _
from django.views.defaults import server_error as django_server_error

from .errors import ServiceError

log = logging.getLogger("shanghaien.outage")

RETRY_AFTER = 5  # seconds: a hint for clients; the database may be back sooner


class DatabaseUnavailable(ServiceError):
    status = 503

    def __init__(self):
        super().__init__(
            "database_unavailable",
            _("The site cannot reach its database just now. Try again in a few seconds."),
        )
        self.retry_after = RETRY_AFTER

    def to_json(self) -> dict:
        body = super().to_json()
        body["error"]["retry_after"] = self.retry_after
        return body


def is_database_unavailable(error: BaseException | None) -> bool:
    return isinstance(error, (OperationalError, InterfaceError))


def outage_response(request) -> HttpResponse:
    error = DatabaseUnavailable()
    log.warning("database unavailable: %s %s answered 503", request.method, request.path)
    if request.path.startswith("/api/"):
        response = JsonResponse(error.to_json(), status=503)
    else:
        # The page asks nothing of the database or the session.
        page = loader.get_template("503.html").render({"message": error.message})
        response = HttpResponse(page, status=503)
    response["Retry-After"] = str(error.retry_after)
    return response


class DatabaseOutageMiddleware:
    """A view that fails for want of the database answers 503, not 500."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        if is_database_unavailable(exception):
            return outage_response(request)
        return None


def server_error(request, *args, **kwargs):
    """The 500 handler: Django calls it while handling the exception, so a failure to
    reach the database in a middleware (the session, the player's language) still
    answers 503."""
    if is_database_unavailable(sys.exc_info()[1]):
        return outage_response(request)
    return django_server_error(request, *args, **kwargs)
