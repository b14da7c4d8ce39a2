"""Authenticating API requests by a personal token (``Authorization: Bearer …``)."""

from __future__ import annotations

from django.utils import timezone

from .models import ApiToken, hash_token


class BadToken(Exception):
    pass


def bearer_token(request) -> str | None:
    """The raw token of the request, None without an Authorization header."""
    header = request.headers.get("Authorization")
    if header is None:
        return None
    scheme, _, raw = header.partition(" ")
    if scheme.lower() != "bearer" or not raw.strip():
        raise BadToken("The Authorization header is 'Bearer <token>'.")
    return raw.strip()


def user_for_token(raw: str):
    token = ApiToken.objects.select_related("user").filter(digest=hash_token(raw)).first()
    if token is None or not token.user.is_active or token.user.is_suspended:
        raise BadToken("This API token is unknown or revoked.")
    # One write a minute at most: a bot polling every second must not hammer the table.
    now = timezone.now()
    if token.last_used_at is None or (now - token.last_used_at).total_seconds() > 60:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
    return token.user
