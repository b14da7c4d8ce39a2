"""The account endpoints of the JSON API (holidays, blocks, push devices, the bot-account
upgrade), and how the API knows who is asking.

Every operation's body and answer is declared in ``accounts.messages``; the API itself
(one django-ninja ``NinjaAPI``, its errors as ``{"error": {code, message}}``) is
``shanghaien.api_site``. Authentication: a personal token in ``Authorization: Bearer …``
(no CSRF: no browser sends it by itself), else the session, with Django's CSRF check on
unsafe methods (the token in the ``X-CSRFToken`` header).
"""

from __future__ import annotations

from django.conf import settings
from django.http import JsonResponse, QueryDict
from django.middleware.csrf import CsrfViewMiddleware
from django.utils.translation import gettext as _
from ninja import Router
from ninja.security import APIKeyCookie, HttpBearer

from shanghaien.lib import webpush
from shanghaien.lib.errors import Forbidden, NotAuthenticated
from shanghaien.lib.schemas import refusals

from .blocks import do_block, do_unblock
from .bot_accounts import do_become_bot_account
from .devices import SESSION_KEY, device_name, do_remove_device, do_subscribe
from .follows import do_follow, do_unfollow, followed_by
from .holidays import do_cancel_holiday, do_declare_holiday
from .messages import (
    BlockBody,
    Blocked,
    BlockList,
    BotAccount,
    DeviceRemoved,
    FollowBody,
    Followed,
    FollowList,
    Holiday,
    HolidayBody,
    HolidayCancelled,
    Holidays,
    PushInfo,
    SubscribeBody,
    Unblocked,
    Unfollowed,
)
from .messages import Device as DeviceOut
from .tokens import BadToken, bearer_token, use_token

SAFE_METHODS = ("GET", "HEAD", "OPTIONS")


class ApiToken(HttpBearer):
    """``Authorization: Bearer <token>``: a token the player made on their preferences
    page. A header that is there but not a good token is refused (``bad_token``), even
    with a session."""

    def __call__(self, request):
        request.auth_by_token = False
        request.token = None  # the TokenUse, when a token says who asks
        try:
            raw = bearer_token(request)
            if raw is None:
                return None  # no header: the session may say who it is
            request.token = use_token(raw)
            request.user = request.token.user
        except BadToken as error:
            raise NotAuthenticated("bad_token", str(error)) from None
        request.auth_by_token = True
        return request.user

    def authenticate(self, request, token):  # pragma: no cover (``__call__`` reads the header)
        return None


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


class Session(APIKeyCookie):
    """The browser's session cookie, with Django's CSRF check on unsafe methods (the
    token in the ``X-CSRFToken`` header)."""

    param_name = settings.SESSION_COOKIE_NAME

    def __init__(self):
        super().__init__(csrf=False)  # checked below, the token read from the header only

    def __call__(self, request):
        if not request.user.is_authenticated:
            return None
        if request.method not in SAFE_METHODS:
            reason = _csrf_failure(request)
            if reason:
                message = _("CSRF check failed: %(reason)s.") % {"reason": reason}
                raise Forbidden("csrf_failed", message)
        return request.user

    def authenticate(self, request, key):  # pragma: no cover (``__call__`` reads the session)
        return None


def not_authenticated() -> NotAuthenticated:
    return NotAuthenticated("not_authenticated", _("Log in, or send an API token."))


AUTH = [ApiToken(), Session()]

router = Router(tags=["accounts"])


# -- holidays -------------------------------------------------------------------------------


@router.get("/holidays/", response={200: Holidays, **refusals()}, url_name="api_holidays")
def holidays(request):
    """The player's holidays, declared and to come."""
    return JsonResponse({"holidays": [_holiday_json(h) for h in request.user.holidays.all()]})


@router.post("/holidays/", response={201: Holiday, **refusals(409, 429)})
def declare_holiday(request, body: HolidayBody):
    """Declare a holiday: the player's deadlines pause for its days."""
    holiday = do_declare_holiday(request.user, body.start, body.end)
    return JsonResponse(_holiday_json(holiday), status=201)


@router.post(
    "/holidays/{int:pk}/cancel/",
    response={200: HolidayCancelled, **refusals(404, 409)},
    url_name="api_holiday_cancel",
)
def holiday_cancel(request, pk: int):
    do_cancel_holiday(request.user, pk)
    return JsonResponse({"cancelled": int(pk)})


def _holiday_json(holiday) -> dict:
    return {
        "id": holiday.pk,
        "start": holiday.start.isoformat(),
        "end": holiday.end.isoformat(),
        "days": holiday.days,
    }


# -- blocks ---------------------------------------------------------------------------------


@router.get("/blocks/", response={200: BlockList, **refusals()}, url_name="api_blocks")
def blocks(request):
    """The names of the players this player blocks."""
    names = request.user.blocks.values_list("blocked__username", flat=True)
    return JsonResponse({"blocked": sorted(names)})


@router.post("/blocks/", response={201: Blocked, **refusals(404, 409, 429)})
def block(request, body: BlockBody):
    """Block a player: no invitation, chat or rematch between the two."""
    found = do_block(request.user, body.username)
    return JsonResponse({"blocked": found.blocked.username}, status=201)


@router.post(
    "/blocks/{username:username}/remove/",
    response={200: Unblocked, **refusals(404)},
    url_name="api_unblock",
)
def unblock(request, username: str):
    do_unblock(request.user, username)
    return JsonResponse({"unblocked": username})


# -- following --------------------------------------------------------------------------------


@router.get("/follows/", response={200: FollowList, **refusals()}, url_name="api_follows")
def follows(request):
    """The names of the players this player follows."""
    return JsonResponse({"following": [u.username for u in followed_by(request.user)]})


@router.post("/follows/", response={201: Followed, **refusals(404, 409)})
def follow(request, body: FollowBody):
    """Follow a player: refused while either blocks the other."""
    found = do_follow(request.user, body.username)
    return JsonResponse({"following": found.followed.username}, status=201)


@router.post(
    "/follows/{username:username}/remove/",
    response={200: Unfollowed, **refusals(404)},
    url_name="api_unfollow",
)
def unfollow(request, username: str):
    do_unfollow(request.user, username)
    return JsonResponse({"unfollowed": username})


# -- push notifications: this player's devices ---------------------------------------------


@router.get("/push/", response={200: PushInfo, **refusals()}, url_name="api_push")
def push(request):
    """The key a browser subscribes with ("" when this server sends no push), and the
    player's devices."""
    devices = request.user.push_subscriptions.all()
    return JsonResponse(
        {"public_key": webpush.public_key(), "devices": [_device_json(d) for d in devices]}
    )


@router.post(
    "/push/subscriptions/",
    response={201: DeviceOut, **refusals(409, 429)},
    url_name="api_push_subscribe",
)
def push_subscribe(request, body: SubscribeBody):
    """Add this browser to the player's devices (or refresh it)."""
    device = do_subscribe(
        request.user,
        body.endpoint,
        body.keys.p256dh,
        body.keys.auth,
        request.headers.get("User-Agent", ""),
    )
    if not request.auth_by_token:
        request.session[SESSION_KEY] = device.pk  # logging out of this browser removes it
    return JsonResponse(_device_json(device), status=201)


@router.post(
    "/push/subscriptions/{pk}/remove/",
    response={200: DeviceRemoved, **refusals(404)},
    url_name="api_push_remove",
)
def push_remove(request, pk: str):
    do_remove_device(request.user, pk)
    return JsonResponse({"removed": int(pk)})


def _device_json(device) -> dict:
    return {
        "id": device.pk,
        "name": device_name(device.user_agent),
        "created_at": device.created_at.isoformat(),
        "last_success_at": device.last_success_at and device.last_success_at.isoformat(),
    }


# -- bot accounts ---------------------------------------------------------------------------


def require_bot_scope(request) -> None:
    """The upgrade asks for the token scope ``bot`` (a session needs none): else 403
    ``insufficient_scope``."""
    token = getattr(request, "token", None)
    if token is not None and not token.allows("bot"):
        message = _("This token's scopes do not allow it: it needs the scope %(scope)s.")
        raise Forbidden("insufficient_scope", message % {"scope": "bot"})


@router.post(
    "/account/bot/",
    response={200: BotAccount, **refusals(409)},
    url_name="api_account_bot",
)
def become_bot_account(request):
    """Make this account a bot account, once and for good (docs/bots.md, "Bring your own
    bot"): only an account that has played no game, with no open invitation, holiday or
    tournament entry, and not a guest's, a computer opponent's or staff's."""
    require_bot_scope(request)
    user = do_become_bot_account(request.user)
    return JsonResponse({"username": user.username, "bot_account": user.bot_account})
