"""The JSON API's plumbing, and the account endpoints (holidays, blocks, push devices).

Every endpoint of the site's API is a ``json_api`` view: errors always come as
``{"error": {code, message}}`` with their HTTP status. Authentication: the session
(with Django's CSRF check on unsafe methods) or a personal token in
``Authorization: Bearer …`` (no CSRF: no browser sends it by itself).
"""

from __future__ import annotations

import functools
import logging

from django.core.exceptions import RequestDataTooBig
from django.http import JsonResponse, QueryDict
from django.middleware.csrf import CsrfViewMiddleware
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt

from shanghaien.lib import webpush
from shanghaien.lib.errors import (
    BadRequest,
    Forbidden,
    NotAuthenticated,
    NotFound,
    RateLimited,
    ServiceError,
    TooLarge,
)
from shanghaien.lib.input import parse_json
from shanghaien.lib.outage import is_database_unavailable, outage_response

from .blocks import do_block, do_unblock
from .devices import SESSION_KEY, device_name, do_remove_device, do_subscribe
from .holidays import do_cancel_holiday, do_declare_holiday
from .tokens import BadToken, bearer_token, user_for_token

log = logging.getLogger(__name__)
MAX_BODY = 16 * 1024


class _CsrfCheck(CsrfViewMiddleware):
    def _reject(self, request, reason):
        return reason


def _csrf_failure(request) -> str | None:
    check = _CsrfCheck(lambda request: None)
    check.process_request(request)
    # The token comes in the X-CSRFToken header: the body is JSON. Django's check would look
    # for a form field first and parse the body as a form, which raises on a multipart or
    # non-UTF-8 form body and leaves the body unreadable as JSON after any other.
    request.POST = QueryDict()
    return check.process_view(request, None, (), {})


def _authenticate(request) -> None:
    request.auth_by_token = False
    try:
        raw = bearer_token(request)
        if raw is not None:
            request.user = user_for_token(raw)
            request.auth_by_token = True
            return
    except BadToken as error:
        raise NotAuthenticated("bad_token", str(error)) from None
    if not request.user.is_authenticated:
        raise NotAuthenticated("not_authenticated", _("Log in, or send an API token."))
    if request.method not in ("GET", "HEAD", "OPTIONS"):
        reason = _csrf_failure(request)
        if reason:
            raise Forbidden("csrf_failed", _("CSRF check failed: %(reason)s.") % {"reason": reason})


def _body(request) -> dict:
    try:
        raw = request.body
    except RequestDataTooBig:
        raise TooLarge(MAX_BODY) from None
    if len(raw) > MAX_BODY:
        raise TooLarge(MAX_BODY)
    data = parse_json(raw or b"{}")
    if not isinstance(data, dict):
        raise BadRequest("bad_request", _("The body is a JSON object."))
    return data


def error_response(error: ServiceError) -> JsonResponse:
    response = JsonResponse(error.to_json(), status=error.status)
    if isinstance(error, RateLimited):
        response["Retry-After"] = str(error.retry_after)
    return response


def json_api(*methods: str):
    """Method check, authentication, JSON body in ``request.data``, typed errors as JSON."""

    def wrap(view):
        @csrf_exempt
        @functools.wraps(view)
        def handler(request, *args, **kwargs):
            try:
                if request.method not in methods:
                    message = _("Use %(methods)s.") % {"methods": " or ".join(methods)}
                    error = ServiceError("method_not_allowed", message)
                    error.status = 405
                    raise error
                _authenticate(request)
                request.data = _body(request) if request.method == "POST" else {}
                return view(request, *args, **kwargs)
            except ServiceError as error:
                return error_response(error)
            except Exception as error:
                if is_database_unavailable(error):
                    return outage_response(request)
                log.exception("API error on %s %s", request.method, request.path)
                message = _("Something went wrong.")
                return JsonResponse(
                    {"error": {"code": "server_error", "message": message}}, status=500
                )

        return handler

    return wrap


def field(data: dict, name: str, default=None, required=False):
    """A field of the JSON body; ``required`` ones are a ``bad_request`` when missing."""
    if required and name not in data:
        raise BadRequest("bad_request", _("The body needs %(name)r.") % {"name": name})
    return data.get(name, default)


def only_fields(data: dict, allowed: set) -> None:
    """Refuse a body with fields the endpoint does not know (a typo must not pass unseen)."""
    unknown = set(data) - allowed
    if unknown:
        message = _("Unknown fields: %(fields)s.") % {"fields": ", ".join(sorted(unknown))}
        raise BadRequest("bad_request", message)


@json_api("GET", "POST", "PUT", "PATCH", "DELETE")
def not_found(request, rest):
    raise NotFound("not_found", _("No such API endpoint."))


# -- the account endpoints ----------------------------------------------------------------


@json_api("GET", "POST")
def holidays(request):
    if request.method == "POST":
        holiday = do_declare_holiday(
            request.user, field(request.data, "start"), field(request.data, "end")
        )
        return JsonResponse(_holiday_json(holiday), status=201)
    return JsonResponse({"holidays": [_holiday_json(h) for h in request.user.holidays.all()]})


@json_api("POST")
def holiday_cancel(request, pk):
    do_cancel_holiday(request.user, pk)
    return JsonResponse({"cancelled": int(pk)})


def _holiday_json(holiday) -> dict:
    return {
        "id": holiday.pk,
        "start": holiday.start.isoformat(),
        "end": holiday.end.isoformat(),
        "days": holiday.days,
    }


@json_api("GET", "POST")
def blocks(request):
    if request.method == "POST":
        block = do_block(request.user, field(request.data, "username", required=True))
        return JsonResponse({"blocked": block.blocked.username}, status=201)
    names = request.user.blocks.values_list("blocked__username", flat=True)
    return JsonResponse({"blocked": sorted(names)})


@json_api("POST")
def unblock(request, username):
    do_unblock(request.user, username)
    return JsonResponse({"unblocked": username})


# -- push notifications: this player's devices ---------------------------------------------


@json_api("GET")
def push(request):
    """The key a browser subscribes with ("" when this server sends no push), and the
    player's devices."""
    devices = request.user.push_subscriptions.all()
    return JsonResponse(
        {"public_key": webpush.public_key(), "devices": [_device_json(d) for d in devices]}
    )


@json_api("POST")
def push_subscribe(request):
    """A browser's ``PushSubscription.toJSON()``: ``{"endpoint", "keys": {"p256dh", "auth"}}``
    (``expirationTime`` is allowed and not kept)."""
    data = request.data
    only_fields(data, {"endpoint", "keys", "expirationTime"})
    keys = field(data, "keys", required=True)
    if not isinstance(keys, dict):
        raise BadRequest("bad_keys", _("The subscription's keys are not valid."))
    only_fields(keys, {"p256dh", "auth"})
    device = do_subscribe(
        request.user,
        field(data, "endpoint", required=True),
        keys.get("p256dh"),
        keys.get("auth"),
        request.headers.get("User-Agent", ""),
    )
    if not request.auth_by_token:
        request.session[SESSION_KEY] = device.pk  # logging out of this browser removes it
    return JsonResponse(_device_json(device), status=201)


@json_api("POST")
def push_remove(request, pk):
    do_remove_device(request.user, pk)
    return JsonResponse({"removed": int(pk)})


def _device_json(device) -> dict:
    return {
        "id": device.pk,
        "name": device_name(device.user_agent),
        "created_at": device.created_at.isoformat(),
        "last_success_at": device.last_success_at and device.last_success_at.isoformat(),
    }
