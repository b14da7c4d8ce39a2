"""Accounts in tests: TOTP codes computed here (RFC 6238), staff with a second factor."""

from __future__ import annotations

import base64
import hashlib
import hmac
import struct
import time

from allauth.mfa.totp.internal.auth import TOTP, generate_totp_secret


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
    secret = generate_totp_secret()
    TOTP.activate(user, secret)
    return secret


def log_in_with_second_factor(client, user) -> None:
    """A session of ``user`` that used a password and an authenticator app, as after the
    log in with both (the admin needs the second for staff: accounts.middleware)."""
    give_authenticator_app(user)
    client.force_login(user)
    session = client.session
    now = time.time()
    session["account_authentication_methods"] = [
        {"method": "password", "at": now, "username": user.username},
        {"method": "mfa", "at": now, "type": "totp"},
    ]
    session["account_authentication_methods_user"] = str(user.pk)
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
