"""Finding players by the start of their name, whatever its case.

The key is ``UPPER(username) COLLATE "C"``: on PostgreSQL the index
``user_username_prefix_idx`` (accounts migration 0021_follow) holds it, so that a prefix reads
one range of the index in the order the results show and a page stops after its rows
(``LIMIT``), whatever the number of names that start so. A page goes on after the last
key of the one before (keyset: no OFFSET).

Found: accounts that can play (active, not suspended), not guests; the computer
opponents too (with their mark, as in the ranking: they can be invited).
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import connection
from django.db.models import Q
from django.db.models.functions import Collate, Upper
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from shanghaien.lib.errors import BadRequest
from shanghaien.lib.input import is_username

from .models import User

PAGE_SIZE = 20
QUERY_MAX = 150  # a name's longest


@dataclass(frozen=True)
class Found:
    players: list[User]
    next: str | None  # the key to go on after (``after``), None on the last page


def check_query(q, field: str = "q") -> str:
    """The start of a name to look for, trimmed; ``BadRequest`` with words a player
    understands for anything else (nothing, too long, not a name's characters)."""
    if not isinstance(q, str):
        raise BadRequest("bad_query", _("Type the start of a player's name."))
    q = q.strip()
    if not q:
        raise BadRequest("bad_query", _("Type the start of a player's name."))
    if len(q) > QUERY_MAX:
        message = ngettext(
            "A player's name has at most %(max)d character.",
            "A player's name has at most %(max)d characters.",
            QUERY_MAX,
        )
        raise BadRequest("bad_query", message % {"max": QUERY_MAX})
    if not is_username(q):
        message = _("A player's name has only letters, digits and @ . + - _: no other character.")
        raise BadRequest("bad_query", message)
    return q


def _upper(text: str) -> str:
    # as the database upper-cases: a letter whose capital is two (ß) stays as it is
    return "".join(c.upper() if len(c.upper()) == 1 else c for c in text)


def _key():
    # "C" orders by bytes, which the index keeps; SQLite calls it BINARY
    return Collate(Upper("username"), "C" if connection.vendor == "postgresql" else "BINARY")


def players_named(q, after=None, size: int = PAGE_SIZE) -> Found:
    """The players whose name starts with ``q`` (any case), by name, ``size`` at most,
    after the key ``after`` (``Found.next`` of the page before)."""
    q = check_query(q)
    found = (
        User.objects.alias(key=_key())
        .filter(key__startswith=_upper(q), is_active=True, guest_until__isnull=True)
        .filter(Q(suspended_until__isnull=True) | Q(suspended_until__lte=timezone.now()))
    )
    if after is not None:
        if not isinstance(after, str) or not is_username(after):
            raise BadRequest("bad_cursor", _("This list cannot go on from there: search again."))
        found = found.filter(key__gt=_upper(after))
    players = list(found.order_by("key")[: size + 1])
    more = len(players) > size
    players = players[:size]
    return Found(players, _upper(players[-1].username) if more else None)
