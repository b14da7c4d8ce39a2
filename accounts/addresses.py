"""A player's email address as the lobby and the profile tell it: confirmed, waiting for
its confirmation, or missing."""

from __future__ import annotations

from allauth.account.models import EmailAddress


def email_banner(user) -> dict | None:
    """What the banner says, or None when the player's address is confirmed.

    ``{"state": "unconfirmed", "email": …}`` while an address (a new one replacing a
    confirmed one included) waits for its link; ``{"state": "missing"}`` without one.
    """
    addresses = list(EmailAddress.objects.filter(user=user).only("email", "verified"))
    waiting = [address for address in addresses if not address.verified]
    if waiting:
        return {"state": "unconfirmed", "email": waiting[0].email}
    if not addresses and not user.email:
        return {"state": "missing"}
    if not addresses:  # an address from before allauth knew of it (createsuperuser)
        return {"state": "unregistered", "email": user.email}
    return None
