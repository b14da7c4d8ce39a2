"""Personal API tokens: issuing them, and authenticating requests by one
(``Authorization: Bearer …``)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from shanghaien.lib.errors import RateLimited
from shanghaien.lib.input import clean_text
from shanghaien.lib.ratelimit import Limit

from .guest_accounts import refuse_guest
from .models import ApiToken, User, hash_token

TOKENS_PER_HOUR = Limit("tokens", 10, 3600, _("At most 10 new tokens an hour."))
TOKENS_MAX = 20  # held at once by one player


def do_issue_token(user, name) -> tuple[ApiToken, str]:
    """A new token and its raw value (shown once); refused past the limits, and to guests."""
    refuse_guest(user, "token")
    name = clean_text(name, "name", max_length=ApiToken._meta.get_field("name").max_length)
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
        return ApiToken.issue(user, name)


class BadToken(Exception):
    pass


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
        return scope in self.scopes


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
        raise BadToken(gettext("This API token has expired."))
    # One write a minute at most: a bot polling every second must not hammer the table.
    if token.last_used_at is None or (now - token.last_used_at).total_seconds() > 60:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
    return TokenUse(token.user, token.pk, token.scope_set, token.expires_at)
