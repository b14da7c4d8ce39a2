"""Accounts in tests: TOTP codes computed here (RFC 6238), staff with a second factor."""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
import struct
import time

from allauth.mfa.adapter import get_adapter as get_mfa_adapter
from allauth.mfa.models import Authenticator


def totp_code(secret: str, at: float | None = None, step: int = 30, digits: int = 6) -> str:
    """The code an authenticator app shows for ``secret`` (base32) at ``at``."""
    counter = int((time.time() if at is None else at) // step)
    key = base64.b32decode(secret.upper() + "=" * (-len(secret) % 8))
    digest = hmac.new(key, struct.pack(">Q", counter), hashlib.sha1).digest()
    offset = digest[-1] & 0x0F
    value = struct.unpack(">I", digest[offset : offset + 4])[0] & 0x7FFFFFFF
    return str(value % 10**digits).zfill(digits)


def give_authenticator_app(user) -> str:
    """Set up TOTP for ``user`` as the activation page would; returns the secret."""
    secret = base64.b32encode(secrets.token_bytes(20)).decode()
    encrypted = get_mfa_adapter().encrypt(secret)  # the adapter's documented hook
    Authenticator.objects.create(
        user=user, type=Authenticator.Type.TOTP, data={"secret": encrypted}
    )
    return secret


def log_in_with_second_factor(client, user) -> None:
    """A session of ``user`` that used an authenticator app, as after setting it up (the
    admin needs the second factor for staff: accounts.middleware)."""
    from accounts.middleware import SECOND_FACTOR_USED

    give_authenticator_app(user)
    client.force_login(user)
    session = client.session
    session[SECOND_FACTOR_USED] = user.pk
    session.save()


def confirmed_address(user, email: str | None = None) -> None:
    """Give ``user`` an address they have confirmed, as after following its link (it
    replaces any other, as a confirmed change of address does)."""
    from allauth.account.models import EmailAddress

    user.email = email or f"{user.username}@example.org"
    user.save(update_fields=["email"])
    EmailAddress.objects.filter(user=user).exclude(email=user.email.lower()).delete()
    EmailAddress.objects.update_or_create(
        user=user, email=user.email.lower(), defaults={"verified": True, "primary": True}
    )
