"""Presence: who is online now, and when each player was last seen.

Online is not stored: a player is online while one of their sockets holds a place among
their account's (``shanghaien.lib.sockets.SocketSlots``, keys ``sockets:<user id>:<n>`` in
the shared cache, Redis in production), so every server process sees the same, and a
socket of a process that was killed stops counting when its lease lapses
(``settings.SOCKET_LEASE_SECONDS``, at most a minute). ``User.last_seen_at`` is written as
a socket opens and closes, at each renewal beat of a process's sockets (one statement for
all its players) and at log-in. A player who turned ``User.show_presence`` off is shown
to others neither online nor last seen; they always see their own.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth.signals import user_logged_in
from django.utils import formats, timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from shanghaien.lib import sockets

from .models import User


@dataclass(frozen=True)
class Presence:
    """What a viewer may know of a player's presence: online now, and when last seen
    (None: never, or not shared)."""

    online: bool
    last_seen: datetime | None


HIDDEN = Presence(False, None)  # what a player who hides presence shows to others


def presence_of(viewer, users: Iterable[User]) -> dict[int, Presence]:
    """Each user's presence as ``viewer`` (a user, or anonymous) may see it, by user id:
    one cache round trip for all of them, and no query (``last_seen_at`` and
    ``show_presence`` are read from the objects given). A computer opponent shows none
    (it holds no socket, and never leaves)."""
    users = list(users)
    viewer_id = getattr(viewer, "pk", None) if getattr(viewer, "is_authenticated", False) else None
    shown = [
        user
        for user in users
        if not user.bot_level and (user.show_presence or user.pk == viewer_id)
    ]
    online = sockets.SocketSlots.holding(user.pk for user in shown) if shown else set()
    presence = dict.fromkeys((user.pk for user in users), HIDDEN)
    for user in shown:
        presence[user.pk] = Presence(user.pk in online, user.last_seen_at)
    return presence


def presence_words(presence: Presence | None, now: datetime | None = None) -> str:
    """ "Online now", "Last seen 3 hours ago" (minutes, hours, days; the date after a
    month), or "" when there is nothing to show."""
    if presence is None:
        return ""
    if presence.online:
        return _("Online now")
    if presence.last_seen is None:
        return ""
    seconds = max(0, ((now or timezone.now()) - presence.last_seen).total_seconds())
    if seconds < 60:
        return _("Last seen just now")
    minutes = int(seconds // 60)
    if minutes < 60:
        return ngettext("Last seen %(n)d minute ago", "Last seen %(n)d minutes ago", minutes) % {
            "n": minutes
        }
    hours = minutes // 60
    if hours < 24:
        return ngettext("Last seen %(n)d hour ago", "Last seen %(n)d hours ago", hours) % {
            "n": hours
        }
    days = hours // 24
    if days < 30:
        return ngettext("Last seen %(n)d day ago", "Last seen %(n)d days ago", days) % {"n": days}
    day = formats.date_format(timezone.localtime(presence.last_seen), "DATE_FORMAT")
    return _("Last seen on %(date)s") % {"date": day}


def seen(user_ids: Iterable[int], now: datetime | None = None) -> None:
    """These players are on the site now: one statement for all of them (a few thousand
    to a statement)."""
    user_ids = sorted(set(user_ids))
    now = now or timezone.now()
    for start in range(0, len(user_ids), 2000):
        User.objects.filter(pk__in=user_ids[start : start + 2000]).update(last_seen_at=now)


def seen_at_login(sender, request, user, **kwargs) -> None:
    seen([user.pk])


def do_show_presence(user, show: bool) -> None:
    """The player's choice whether others see them online and when last seen."""
    User.objects.filter(pk=user.pk).update(show_presence=bool(show))
    user.show_presence = bool(show)


def connect() -> None:
    """Hear the sockets and the log-ins (``AccountsConfig.ready``)."""
    if seen not in sockets.seen_hooks:
        sockets.seen_hooks.append(seen)
    user_logged_in.connect(seen_at_login, dispatch_uid="accounts.online.seen_at_login")
