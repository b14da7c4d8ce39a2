"""Error reporting to Sentry (or any service that speaks its protocol), when a DSN is set.

What is sent: the exception with its stack (file, line, function and the source lines
around; never the frames' variables, which hold deck orders and seeds), the route and
the path (a path holding a secret token is replaced by its route pattern), the request's
method and its headers minus cookies, authorization and forwarded addresses, and the
log lines before the error. What is never sent: local variables, request bodies, the
query string, cookies, the user, the client's address.
"""

from __future__ import annotations

import logging
from urllib.parse import urlsplit, urlunsplit

log = logging.getLogger(__name__)

ACCESS_LOGGER = "shanghaien.access"


def init(dsn: str, environment: str = "", release: str = "") -> bool:
    """Start reporting to ``dsn``; nothing (False) without one."""
    if not dsn:
        return False
    import sentry_sdk
    from sentry_sdk.integrations.django import DjangoIntegration
    from sentry_sdk.integrations.logging import ignore_logger

    # One line a request, with the client's address: neither an error nor a breadcrumb.
    ignore_logger(ACCESS_LOGGER)
    sentry_sdk.init(
        dsn=dsn,
        # None: Sentry's own default ("production"), and the release it detects
        # (SENTRY_RELEASE, or the checkout's commit)
        environment=environment or None,
        release=release or None,
        integrations=[DjangoIntegration()],  # 500s; the logging integration sends errors
        send_default_pii=False,
        include_local_variables=False,
        max_request_body_size="never",
        before_send=scrub,
    )
    return True


def scrub(event: dict, hint: dict) -> dict:
    """The event without the query string, and with a path that holds a secret replaced
    by its route pattern."""
    request = event.get("request")
    if isinstance(request, dict):
        request.pop("query_string", None)
        url = request.get("url")
        if isinstance(url, str):
            from .routes import route_of

            parts = urlsplit(url)
            shown = route_of(parts.path)[1]
            request["url"] = urlunsplit((parts.scheme, parts.netloc, shown, "", ""))
    return event


def report(error: BaseException, **tags: str) -> None:
    """Report ``error`` (handled by the caller, e.g. a worker job that failed), with tags.

    A no-op without a DSN. The same exception logged afterwards with ``log.exception``
    is not reported twice (Sentry drops the repeat).
    """
    import sentry_sdk

    if not sentry_sdk.get_client().is_active():
        return
    with sentry_sdk.new_scope() as scope:
        for name, value in tags.items():
            scope.set_tag(name, value)
        sentry_sdk.capture_exception(error)
