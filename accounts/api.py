"""The account endpoints of the JSON API (tokens, holidays, blocks, push devices, the
bot-account upgrade), and how the API knows who is asking and what a token lets it do.

Every operation's body and answer is declared in ``accounts.messages``; the API itself
(one django-ninja ``NinjaAPI``, its errors as ``{"error": {code, message}}``) is
``shanghaien.api_site``. Authentication: a personal token in ``Authorization: Bearer …``
(no CSRF: no browser sends it by itself), else the session, with Django's CSRF check on
unsafe methods (the token in the ``X-CSRFToken`` header).

Scopes: a token's request needs ``read`` for GET and HEAD, ``play`` (which includes
``read``) for any other method; an operation that needs another declares its own
authentication, ``auth=token_or_session("bot")``. A token without it is refused with 403
``insufficient_scope``, naming the scope; a session may do everything.
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
    TokenBody,
    TokenCreated,
    TokenList,
    TokenRevoked,
    Unblocked,
    Unfollowed,
)
from .messages import Device as DeviceOut
from .middleware import used_second_factor
from .tokens import (
    BadToken,
    bearer_token,
    do_issue_token,
    do_revoke_token,
    password_user,
    token_json,
    tokens_json,
    use_token,
)

SAFE_METHODS = ("GET", "HEAD", "OPTIONS")
READ_METHODS = ("GET", "HEAD")
ANY_SCOPE = "any"  # an operation every token may call, whatever its scopes


def needed_scope(method: str) -> str:
    """The scope a token needs for an operation that declares none: ``read`` to look,
    ``play`` to change anything."""
    return "read" if method in READ_METHODS else "play"


class ApiToken(HttpBearer):
    """``Authorization: Bearer <token>``: a token the player made (their settings page,
    or ``POST /api/tokens/``). A header that is there but not a good token is refused
    (``bad_token``; ``token_expired`` past its expiry), even with a session. ``scope``:
    what the operation needs of the token (None: by the method, ``needed_scope``;
    ANY_SCOPE: nothing)."""

    def __init__(self, scope: str | None = None):
        super().__init__()
        self.scope = scope

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
            if error.code == "token_expired":
                raise NotAuthenticated("token_expired", str(error)) from None
            raise NotAuthenticated("bad_token", str(error)) from None
        request.auth_by_token = True
        scope = self.scope or needed_scope(request.method)
        if scope != ANY_SCOPE and not request.token.allows(scope):
            message = _("This token lacks the scope '%(scope)s' this operation needs.")
            raise Forbidden("insufficient_scope", message % {"scope": scope})
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


def token_or_session(scope: str | None = None) -> list:
    """The authentication of an operation: a token holding ``scope`` (None: ``read`` for
    GET and HEAD, else ``play``; ANY_SCOPE: any token), else the session. Give it as the
    operation's ``auth=`` to ask for another scope than the method's, e.g.
    ``@router.post("/account/bot/", auth=token_or_session("bot"))``."""
    return [ApiToken(scope), Session()]


AUTH = token_or_session()


class TokenMaker(Session):
    """Who may make a token: the session (with its CSRF check), or nobody yet, who then
    sends the account's name and password in the body. A token may not make tokens."""

    def __call__(self, request):
        request.auth_by_token = False
        request.token = None
        if "Authorization" in request.headers:
            raise Forbidden(
                "token_not_allowed",
                _(
                    "A token cannot make tokens: send no Authorization header, but a "
                    "session or the account's username and password."
                ),
            )
        if request.user.is_authenticated:
            return super().__call__(request)
        return True  # the body's username and password say who


router = Router(tags=["accounts"])


# -- personal API tokens --------------------------------------------------------------------


@router.post(
    "/tokens/",
    auth=[TokenMaker()],
    response={201: TokenCreated, **refusals(429)},
    url_name="api_tokens_create",
)
def create_token(request, body: TokenBody):
    """Make a token; its value is in this answer only. With a session, for its account
    (staff: a session that used its second factor); else for the account whose
    ``username`` and ``password`` the body holds (staff add ``code``)."""
    if request.user.is_authenticated:
        user = request.user
        if user.is_staff and not used_second_factor(request):
            raise Forbidden(
                "second_factor_required",
                _("Staff make tokens from a session that used its second factor: log in again."),
            )
    else:
        if body.username is None or body.password is None:
            raise NotAuthenticated(
                "not_authenticated",
                _("Log in, or send the account's 'username' and 'password'."),
            )
        user = password_user(request, body.username, body.password, body.code)
    token, raw = do_issue_token(user, body.name, body.scopes, body.expires_in_days)
    return JsonResponse({**token_json(token), "token": raw}, status=201)


@router.get(
    "/tokens/",
    auth=token_or_session(ANY_SCOPE),
    response={200: TokenList, **refusals()},
    url_name="api_tokens",
)
def tokens(request):
    """The account's tokens, newest first (never their values)."""
    return JsonResponse({"tokens": tokens_json(request.user)})


@router.post(
    "/tokens/{int:pk}/revoke/",
    auth=token_or_session(ANY_SCOPE),
    response={200: TokenRevoked, **refusals(404)},
    url_name="api_token_revoke",
)
def revoke_token(request, pk: int):
    """Revoke a token: with a session any of the account's, with a token only itself.
    Its streams and sockets close at once."""
    if request.token is not None and request.token.token_id != int(pk):
        raise Forbidden("other_token", _("A token may revoke only itself."))
    do_revoke_token(request.user, pk)
    return JsonResponse({"revoked": int(pk)})


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


@router.post(
    "/account/bot/",
    response={200: BotAccount, **refusals(409)},
    url_name="api_account_bot",
    auth=token_or_session("bot"),
)
def become_bot_account(request):
    """Make this account a bot account, once and for good (docs/bots.md, "Bring your own
    bot"): only an account that has played no game, with no open invitation, holiday or
    tournament entry, and not a guest's, a computer opponent's or staff's."""
    user = do_become_bot_account(request.user)
    return JsonResponse({"username": user.username, "bot_account": user.bot_account})
