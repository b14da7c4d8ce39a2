"""Personal API tokens: issuing them, and authenticating requests by one
(``Authorization: Bearer …``)."""

from __future__ import annotations

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


def user_for_token(raw: str):
    token = ApiToken.objects.select_related("user").filter(digest=hash_token(raw)).first()
    if token is None or not token.user.is_active or token.user.is_suspended:
        raise BadToken(gettext("This API token is unknown or revoked."))
    # One write a minute at most: a bot polling every second must not hammer the table.
    now = timezone.now()
    if token.last_used_at is None or (now - token.last_used_at).total_seconds() > 60:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
    return token.user
