"""Guests: a visitor plays the computer without signing up (docs/operations.md, "Guests").

A guest is a ``User`` with ``guest_until`` set: no password anyone could type, a name
"Guest-" and six letters or digits that no sign-up can take (``accounts.adapter`` refuses
the prefix), logged in by the session that made it. It plays the computer only, unrated,
one game at a time; it cannot chat, invite, accept a person's game, report or make API
tokens (``refuse_guest``, called by each of those services). Signing up turns the same
row into a real account, games and all (``accounts.adapter``). A guest unused for
``GUEST_LIFETIME`` is deleted with its games (``games.services.guest_expiry``).
"""

from __future__ import annotations

import secrets
from datetime import datetime, timedelta

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from shanghaien.lib.errors import Conflict, Forbidden
from shanghaien.lib.ratelimit import Limit

from .models import User

GUEST_PREFIX = "Guest-"
# No 0/O, 1/I/L: a name read aloud or copied by hand stays the same.
NAME_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
NAME_LETTERS = 6
# A guest lives this long after it was made, its last game started or its last move.
GUEST_LIFETIME = timedelta(hours=24)
# New guests from one client address (its last proxy's view: accounts.throttle).
GUESTS_PER_ADDRESS = Limit(
    "guests", 5, 3600, _("Too many guest accounts from your address: sign up to play on.")
)
# Games under way at once, per guest (a person signed up may have more).
GUEST_ACTIVE_GAMES_MAX = 1

# What a guest is told when it tries what only a signed-up player may do.
REFUSALS = {
    "chat": _("Sign up to chat with other players."),
    "invite": _("Sign up to invite other players; as a guest you play the computer."),
    "accept": _("Sign up to play against other people; as a guest you play the computer."),
    "report": _("Sign up to report games and messages to the moderators."),
    "token": _("Sign up to use API tokens."),
    "note": _("Sign up to keep notes on your games."),
}


def is_guest_name(name: str) -> bool:
    """Whether ``name`` looks like a guest's: kept for guests, whatever its case."""
    return name.casefold().startswith(GUEST_PREFIX.casefold())


def still_guest(user) -> bool:
    """Whether ``user`` is a guest now. Nobody becomes a guest, so an account loaded as
    not one is not one; one loaded as a guest (an open socket's) is read again, as it may
    have signed up since."""
    if not getattr(user, "is_guest", False):
        return False
    return User.objects.filter(pk=user.pk, guest_until__isnull=False).exists()


def refuse_guest(user, what: str) -> None:
    """Raise ``Forbidden`` with the sign-up hint for ``what`` (a key of ``REFUSALS``) if
    ``user`` is a guest."""
    if still_guest(user):
        raise Forbidden("guest", REFUSALS[what])


def guest_name() -> str:
    return GUEST_PREFIX + "".join(secrets.choice(NAME_ALPHABET) for _ in range(NAME_LETTERS))


def do_make_guest(address: str, language: str = "", now: datetime | None = None) -> User:
    """A new guest account for a visitor at ``address``; ``RateLimited`` past
    ``GUESTS_PER_ADDRESS``. ``language``: the page's, for its pages and the board."""
    GUESTS_PER_ADDRESS.hit(address or "unknown")
    now = now or timezone.now()
    for _attempt in range(5):
        user = User(username=guest_name(), guest_until=now + GUEST_LIFETIME, language=language)
        user.set_unusable_password()
        try:
            with transaction.atomic():
                user.save()
        except IntegrityError:  # the name was taken meanwhile: draw another
            continue
        return user
    raise Conflict("guest_name", _("No guest name was free: try again."))


def renew(user, now: datetime | None = None) -> None:
    """A guest was active: it lives ``GUEST_LIFETIME`` from now. Nothing for anyone else
    (read in the statement: a guest who signed up meanwhile stays signed up)."""
    if getattr(user, "is_guest", False):
        until = (now or timezone.now()) + GUEST_LIFETIME
        User.objects.filter(pk=user.pk, guest_until__isnull=False).update(guest_until=until)
