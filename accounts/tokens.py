"""Personal API tokens: issuing, listing and revoking them, and authenticating requests
and sockets by one (``Authorization: Bearer …``).

A token that stops being good (revoked, expired, its account's password changed or the
account suspended) closes what it opened at once: ``close_tokens`` tells the channel
layer group ``token_group(id)`` that every stream and socket opened with it joined.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import logging
from dataclasses import dataclass

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.contrib.auth import authenticate
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from shanghaien.lib.errors import BadRequest, Forbidden, NotAuthenticated, NotFound, RateLimited
from shanghaien.lib.input import clean_text
from shanghaien.lib.ratelimit import Limit

from .guest_accounts import refuse_guest
from .models import ApiToken, User, hash_token

logger = logging.getLogger(__name__)

TOKENS_PER_HOUR = Limit("tokens", 10, 3600, _("At most 10 new tokens an hour."))
TOKENS_MAX = 20  # held at once by one player
EXPIRY_DAYS = (1, 365)  # a token's expiry, when it has one: at least a day, at most a year
# Making a token with a password: attempts from one address, and for one account name.
PASSWORD_TRIES_PER_ADDRESS = Limit(
    "token_password_address", 20, 900, _("Too many attempts from this address.")
)
PASSWORD_TRIES_PER_NAME = Limit(
    "token_password_name", 10, 900, _("Too many attempts for this account.")
)


def clean_scopes(scopes) -> tuple[str, ...]:
    """The scopes asked for, each once, in SCOPES' order; ``bad_scopes`` for an empty
    list or one that names anything else."""
    if isinstance(scopes, str) or not scopes or not all(s in SCOPES for s in scopes):
        raise BadRequest(
            "bad_scopes",
            gettext("'scopes' is a non-empty list of: %(scopes)s.") % {"scopes": ", ".join(SCOPES)},
        )
    return tuple(s for s in SCOPES if s in scopes)


def expiry(days, now: dt.datetime | None = None) -> dt.datetime | None:
    """When a token made now for ``days`` days expires (None: until revoked);
    ``bad_expiry`` outside EXPIRY_DAYS."""
    if days is None:
        return None
    low, high = EXPIRY_DAYS
    if isinstance(days, bool) or not isinstance(days, int) or not low <= days <= high:
        message = gettext("'expires_in_days' is a whole number from %(low)d to %(high)d.")
        raise BadRequest("bad_expiry", message % {"low": low, "high": high})
    return (now or timezone.now()) + dt.timedelta(days=days)


def do_issue_token(
    user, name, scopes=("read", "play"), expires_in_days: int | None = None
) -> tuple[ApiToken, str]:
    """A new token and its raw value (shown once); refused past the limits, and to guests.
    ``scopes``: of SCOPES, at least one; ``expires_in_days``: None (until revoked) or
    EXPIRY_DAYS."""
    refuse_guest(user, "token")
    name = clean_text(name, "name", max_length=ApiToken._meta.get_field("name").max_length)
    scopes = clean_scopes(scopes)
    expires_at = expiry(expires_in_days)
    with transaction.atomic():
        User.objects.select_for_update().filter(pk=user.pk).first()  # the count below holds
        if ApiToken.objects.filter(user=user).count() >= TOKENS_MAX:
            message = ngettext(
                "You hold %(n)d token already: revoke it if you no longer use it.",
                "You hold %(n)d tokens already: revoke one you no longer use.",
                TOKENS_MAX,
            )
            raise RateLimited(message % {"n": TOKENS_MAX}, 3600)
        TOKENS_PER_HOUR.hit(user.pk)
        return ApiToken.issue(user, name, scopes, expires_at)


def do_revoke_token(user, token_id) -> ApiToken:
    """Revoke one of ``user``'s tokens (``not_found`` for any other); what it opened
    closes once the revocation is committed."""
    with transaction.atomic():
        token = ApiToken.objects.filter(pk=token_id, user=user).first()
        if token is None:
            raise NotFound("not_found", gettext("You have no such token."))
        token.delete()  # what it opened closes once this commits (``token_deleted``)
        token.pk = token_id
    return token


def token_deleted(sender, instance, **kwargs) -> None:
    """Whenever a token's row goes (revoked, its account's password changed, the account
    deleted), what it opened closes once that commits: ``post_delete`` of ApiToken."""
    close_tokens_after_commit([instance.pk])


def close_tokens(token_ids, reason: str = "revoked") -> None:
    """Close every stream and socket opened with these tokens, in every process: a
    ``{"type": "token.closed", "reason": reason}`` to each token's group ("revoked" or
    "expired"). Call it after the commit that made them bad. A channel layer that is away
    is logged, not raised: the token is refused from now on all the same."""
    layer = get_channel_layer()
    if layer is None:
        return
    for token_id in token_ids:
        try:
            async_to_sync(layer.group_send)(
                token_group(token_id), {"type": "token.closed", "reason": reason}
            )
        except Exception:
            logger.warning("could not close what token %s opened", token_id, exc_info=True)


def close_tokens_after_commit(token_ids, reason: str = "revoked") -> None:
    """``close_tokens`` once the current transaction commits (at once outside one)."""
    token_ids = list(token_ids)
    if token_ids:
        transaction.on_commit(lambda: close_tokens(token_ids, reason))


def close_user_tokens(user_id: int) -> None:
    """Close what the account's tokens opened, once the current transaction commits: its
    password changed (the tokens are deleted), or it was suspended (they are refused)."""
    close_tokens_after_commit(ApiToken.objects.filter(user_id=user_id).values_list("pk", flat=True))


def tokens_json(user) -> list[dict]:
    """The account's tokens as the API lists them (never the digest)."""
    return [token_json(t) for t in ApiToken.objects.filter(user=user)]


def token_json(token: ApiToken) -> dict:
    def when(moment):
        return moment and moment.isoformat()

    return {
        "id": token.pk,
        "name": token.name,
        "hint": token.hint,
        "scopes": [s for s in SCOPES if s in token.scope_set],
        "created_at": when(token.created_at),
        "last_used_at": when(token.last_used_at),
        "expires_at": when(token.expires_at),
    }


def password_user(request, username, password, code) -> User:
    """The account whose name (or email) and password these are, to make a token with.

    Attempts are limited per address and per name (429); a wrong name or password gets
    one answer, ``bad_credentials``, that does not tell which. Staff also send their
    authenticator app's code (or one of their recovery codes) as ``code``."""
    PASSWORD_TRIES_PER_ADDRESS.hit(client_address(request))
    PASSWORD_TRIES_PER_NAME.hit(hashlib.sha256(username.strip().lower().encode()).hexdigest())
    user = authenticate(request, username=username, password=password)
    if user is None:
        raise NotAuthenticated("bad_credentials", gettext("The username or the password is wrong."))
    if user.is_staff:
        check_second_factor(user, code)
    return user


def client_address(request) -> str:
    """The address a request came from, as allauth's limits read it (behind the trusted
    proxies); without one that it can tell, all such requests share one count."""
    from allauth.account.adapter import get_adapter

    try:
        return get_adapter(request).get_client_ip(request)
    except PermissionDenied:
        return "unknown"


def check_second_factor(user, code) -> None:
    """A staff member's code: of their authenticator app, or a recovery code (allauth's
    authenticators check it, as its own form does). Refused without one."""
    from allauth.mfa.models import Authenticator

    authenticators = Authenticator.objects.filter(
        user=user, type__in=[Authenticator.Type.TOTP, Authenticator.Type.RECOVERY_CODES]
    )
    if not any(a.type == Authenticator.Type.TOTP for a in authenticators):
        raise Forbidden(
            "second_factor_required",
            gettext(
                "Staff accounts need an authenticator app before they make tokens: set one "
                "up on your settings page."
            ),
        )
    if not code:
        raise NotAuthenticated(
            "second_factor_required",
            gettext("Staff accounts send their authenticator app's code as 'code'."),
        )
    for authenticator in authenticators:
        if authenticator.wrap().validate_code(str(code)):
            authenticator.record_usage()
            return
    raise NotAuthenticated("bad_second_factor", gettext("The code is wrong or used already."))


class BadToken(Exception):
    """A token that cannot be used; ``code`` says why: ``bad_token`` (unknown, revoked,
    its account unusable, or a malformed header) or ``token_expired``."""

    def __init__(self, message: str, code: str = "bad_token"):
        super().__init__(message)
        self.code = code


def bearer_token(request) -> str | None:
    """The raw token of the request, None without an Authorization header."""
    header = request.headers.get("Authorization")
    if header is None:
        return None
    scheme, _space, raw = header.partition(" ")
    if scheme.lower() != "bearer" or not raw.strip():
        raise BadToken(gettext("The Authorization header is 'Bearer <token>'."))
    return raw.strip()


# What a token may be allowed: ``read`` the GET operations and the streams, ``play``
# everything a player does (moves, invitations, chat…), ``bot`` make its account a bot
# account. A token holds one or more.
SCOPES = ("read", "play", "bot")


@dataclass(frozen=True)
class TokenUse:
    """A request's or a socket's token, as it was when it was checked."""

    user: User
    token_id: int
    scopes: frozenset[str]
    expires_at: dt.datetime | None

    def allows(self, scope: str) -> bool:
        """Whether the token holds ``scope``; ``play`` includes ``read``."""
        return scope in self.scopes or (scope == "read" and "play" in self.scopes)


def token_group(token_id: int) -> str:
    """The channel-layer group of the streams and sockets opened with one token: each
    hears ``{"type": "token.closed", "reason": "revoked" | "expired"}`` when the token
    stops being good, and closes."""
    return f"token.{token_id}"


def use_token(raw: str) -> TokenUse:
    """The token ``raw`` and its user; ``BadToken`` if it is unknown, revoked, expired,
    or its account cannot be used."""
    token = ApiToken.objects.select_related("user").filter(digest=hash_token(raw)).first()
    if token is None or not token.user.is_active or token.user.is_suspended:
        raise BadToken(gettext("This API token is unknown or revoked."))
    now = timezone.now()
    if token.expires_at is not None and token.expires_at <= now:
        raise BadToken(gettext("This API token has expired."), "token_expired")
    # One write a minute at most: a bot polling every second must not hammer the table.
    if token.last_used_at is None or (now - token.last_used_at).total_seconds() > 60:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
    return TokenUse(token.user, token.pk, token.scope_set, token.expires_at)


def token_alive(token_id: int) -> bool:
    """Whether the token is still good now (a socket that joined its group looks once
    more: a revocation just before it joined was not heard)."""
    token = ApiToken.objects.select_related("user").filter(pk=token_id).first()
    if token is None or not token.user.is_active or token.user.is_suspended:
        return False
    return token.expires_at is None or token.expires_at > timezone.now()
