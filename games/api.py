"""The JSON API: thin views over games.services, errors always as {"error": {code, message}}.

Authentication: the session (with Django's CSRF check on unsafe methods) or a personal
token in ``Authorization: Bearer …`` (no CSRF: no browser sends it by itself).
"""

from __future__ import annotations

import functools
import logging

from django.core.exceptions import RequestDataTooBig
from django.http import JsonResponse, QueryDict
from django.middleware.csrf import CsrfViewMiddleware
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.gzip import gzip_page

from accounts.blocks import do_block, do_unblock
from accounts.holidays import do_cancel_holiday, do_declare_holiday
from accounts.tokens import BadToken, bearer_token, user_for_token
from moderation.services import do_report
from shanghaien.lib.input import parse_json

from . import history, queries, services
from .errors import (
    BadRequest,
    Forbidden,
    NotAuthenticated,
    NotFound,
    RateLimited,
    ServiceError,
    TooLarge,
)
from .serializers import chat_json, game_json, game_summary, invitation_json, recent_chat

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
    try:
        raw = bearer_token(request)
        if raw is not None:
            request.user = user_for_token(raw)
            return
    except BadToken as error:
        raise NotAuthenticated("bad_token", str(error)) from None
    if not request.user.is_authenticated:
        raise NotAuthenticated("not_authenticated", "Log in, or send an API token.")
    if request.method not in ("GET", "HEAD", "OPTIONS"):
        reason = _csrf_failure(request)
        if reason:
            raise Forbidden("csrf_failed", f"CSRF check failed: {reason}.")


def _body(request) -> dict:
    try:
        raw = request.body
    except RequestDataTooBig:
        raise TooLarge(MAX_BODY) from None
    if len(raw) > MAX_BODY:
        raise TooLarge(MAX_BODY)
    data = parse_json(raw or b"{}")
    if not isinstance(data, dict):
        raise BadRequest("bad_request", "The body is a JSON object.")
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
                    error = ServiceError("method_not_allowed", f"Use {' or '.join(methods)}.")
                    error.status = 405
                    raise error
                _authenticate(request)
                request.data = _body(request) if request.method == "POST" else {}
                return view(request, *args, **kwargs)
            except ServiceError as error:
                return error_response(error)
            except Exception:
                log.exception("API error on %s %s", request.method, request.path)
                return JsonResponse(
                    {"error": {"code": "server_error", "message": "Something went wrong."}},
                    status=500,
                )

        return handler

    return wrap


def _field(data: dict, name: str, default=None, required=False):
    if required and name not in data:
        raise BadRequest("bad_request", f"The body needs {name!r}.")
    return data.get(name, default)


@json_api("GET", "POST")
def invitations(request):
    if request.method == "POST":
        data = request.data
        unknown = set(data) - {"to", "extra_wild", "days_per_move", "message", "rated"}
        if unknown:
            raise BadRequest("bad_request", f"Unknown fields: {', '.join(sorted(unknown))}.")
        invitation = services.do_invite(
            request.user,
            to=_field(data, "to"),
            extra_wild=_field(data, "extra_wild", False),
            days_per_move=_field(data, "days_per_move", 3),
            message=_field(data, "message", ""),
            rated=_field(data, "rated", True),
        )
        return JsonResponse(invitation_json(invitation), status=201)
    lists = queries.invitations_for(request.user)
    return JsonResponse({k: [invitation_json(i) for i in v] for k, v in lists.items()})


@json_api("POST")
def invitation_accept(request, pk):
    game = services.do_accept_invitation(pk, request.user)
    return JsonResponse({"game": game.pk}, status=201)


@json_api("POST")
def invitation_decline(request, pk):
    return JsonResponse(invitation_json(services.do_decline_invitation(pk, request.user)))


@json_api("POST")
def invitation_cancel(request, pk):
    return JsonResponse(invitation_json(services.do_cancel_invitation(pk, request.user)))


@json_api("GET")
def games(request):
    wanted = request.GET.get("status", "active")
    statuses = ("active",) if wanted == "active" else ("finished", "aborted")
    found = queries.games_for(request.user, statuses)[:200]
    return JsonResponse({"games": [game_summary(g, request.user) for g in found]})


@json_api("GET")
def game(request, pk):
    return JsonResponse(game_json(services.get_game(pk), request.user))


@json_api("POST")
def game_commands(request, pk):
    data = request.data
    outcome = services.do_command(
        pk,
        request.user,
        _field(data, "command", required=True),
        _field(data, "expected_version", required=True),
        _field(data, "client_id", required=True),
    )
    body = game_json(outcome.game, request.user)
    body["applied"] = {"version": outcome.version, "duplicate": outcome.duplicate}
    return JsonResponse(body)


@json_api("POST")
def game_extend(request, pk):
    services.do_extend(pk, request.user)
    return JsonResponse(game_json(services.get_game(pk), request.user))


@json_api("POST")
def game_rematch(request, pk):
    return JsonResponse(invitation_json(services.do_rematch(pk, request.user)), status=201)


@gzip_page
@json_api("GET")
def game_replay(request, pk):
    return JsonResponse(history.replay(services.get_game(pk), request.user, request.GET.get("as")))


@gzip_page
@json_api("GET")
def game_export(request, pk):
    return JsonResponse(history.export(services.get_game(pk)))


@json_api("GET", "POST")
def holidays(request):
    if request.method == "POST":
        holiday = do_declare_holiday(
            request.user, _field(request.data, "start"), _field(request.data, "end")
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
def game_chat(request, pk):
    game = services.get_game(pk)
    if request.method == "POST":
        message = services.do_chat(pk, request.user, _field(request.data, "text"))
        return JsonResponse(chat_json(message, request.user.pk), status=201)
    seats = sorted(game.seats.all(), key=lambda s: s.seat)
    me = request.user.pk if game.seat_of(request.user) is not None else seats[0].user_id
    return JsonResponse({"chat": [chat_json(m, me) for m in recent_chat(game)]})


@json_api("POST")
def reports(request):
    data = request.data
    unknown = set(data) - {"game", "message", "reason"}
    if unknown:
        raise BadRequest("bad_request", f"Unknown fields: {', '.join(sorted(unknown))}.")
    report = do_report(
        request.user, data.get("reason"), game_id=data.get("game"), message_id=data.get("message")
    )
    return JsonResponse({"id": report.pk, "status": report.status}, status=201)


@json_api("GET", "POST")
def blocks(request):
    if request.method == "POST":
        block = do_block(request.user, _field(request.data, "username", required=True))
        return JsonResponse({"blocked": block.blocked.username}, status=201)
    names = request.user.blocks.values_list("blocked__username", flat=True)
    return JsonResponse({"blocked": sorted(names)})


@json_api("POST")
def unblock(request, username):
    do_unblock(request.user, username)
    return JsonResponse({"unblocked": username})


@json_api("GET", "POST", "PUT", "PATCH", "DELETE")
def not_found(request, rest):
    raise NotFound("not_found", "No such API endpoint.")
