"""A player's devices for push notifications: adding one (from the profile, or the offer
after a first move), removing one, and naming it for the profile's list.

A browser's subscription is one endpoint: subscribing again refreshes its keys, and an
endpoint another account held (the same browser, someone else logged in since) moves to
the player who subscribed last, so no one's notifications show on a device they left.
"""

from __future__ import annotations

import re

from django.db import transaction
from django.db.models import Count, OuterRef, Subquery
from django.db.models.functions import Coalesce
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext, pgettext

from shanghaien.lib import webpush
from shanghaien.lib.errors import BadRequest, Conflict, NotFound
from shanghaien.lib.input import parse_id
from shanghaien.lib.ratelimit import Limit

from .models import PushSubscription, User

DEVICES_MAX = 10
SUBSCRIBE_LIMIT = Limit(
    "push_subscribe", 30, 3600, gettext_lazy("Too many devices turned on in an hour.")
)
SESSION_KEY = "push_subscription"  # this browser's subscription: removed on logging out


def do_subscribe(user: User, endpoint, p256dh, auth, user_agent: str = "") -> PushSubscription:
    """Add this browser to the player's devices, or refresh it; a clear error for an
    endpoint the server does not post to, keys it cannot encrypt for, no push on this
    server, or too many devices."""
    vapid_key = webpush.public_key()
    if not vapid_key:
        raise Conflict("push_unavailable", _("This server does not send push notifications."))
    try:
        webpush.check_endpoint(endpoint)
    except webpush.EndpointRefused:
        raise BadRequest(
            "bad_endpoint", _("This is not the address of a browser's push service.")
        ) from None
    try:
        p256dh, auth = webpush.check_keys(p256dh, auth)
    except webpush.EndpointRefused:
        raise BadRequest("bad_keys", _("The subscription's keys are not valid.")) from None
    SUBSCRIBE_LIMIT.hit(user.pk)
    fields = {
        "user": user,
        "p256dh": p256dh,
        "auth": auth,
        "vapid_key": vapid_key,
        "user_agent": " ".join(str(user_agent or "").split())[:300],
    }
    with transaction.atomic():
        User.objects.select_for_update().filter(pk=user.pk).first()  # one at a time per player
        existing = PushSubscription.objects.select_for_update().filter(endpoint=endpoint).first()
        mine = existing is not None and existing.user_id == user.pk
        if not mine and user.push_subscriptions.count() >= DEVICES_MAX:
            raise Conflict(
                "too_many_devices",
                ngettext(
                    "Notifications are on for %(n)d device already: remove it first.",
                    "Notifications are on for %(n)d devices already: remove one first.",
                    DEVICES_MAX,
                )
                % {"n": DEVICES_MAX},
            )
        if existing is None:
            return PushSubscription.objects.create(endpoint=endpoint, **fields)
        previous = existing.user_id
        for name, value in fields.items():
            setattr(existing, name, value)
        if not mine:
            existing.last_success_at = None  # another player's deliveries said nothing of this
        existing.save()
        if not mine:
            recount_devices(previous)
        return existing


def do_remove_device(user: User, pk) -> None:
    """Stop notifying one of the player's devices."""
    number = parse_id(pk)
    deleted = number and PushSubscription.objects.filter(user=user, pk=number).delete()[0]
    if not deleted:
        raise NotFound("not_found", _("No such device."))


def recount_devices(*user_ids) -> None:
    """``User.push_devices`` from the rows themselves, in one statement."""
    devices = (
        PushSubscription.objects.filter(user_id=OuterRef("pk"))
        .order_by()
        .values("user_id")
        .annotate(n=Count("pk"))
        .values("n")
    )
    User.objects.filter(pk__in=user_ids).update(push_devices=Coalesce(Subquery(devices), 0))


def device_added_or_removed(sender, instance, **kwargs) -> None:
    """The ``post_save`` and ``post_delete`` signals of ``PushSubscription``: whatever
    adds or removes a device (the API, the profile, logging out, a push service's 410, a
    deleted account) keeps the count true."""
    recount_devices(instance.user_id)


def forget_on_logout(sender, request, user, **kwargs) -> None:
    """Logging out of a browser stops its notifications (the ``user_logged_out`` signal)."""
    if user is None or request is None or not hasattr(request, "session"):
        return
    pk = parse_id(request.session.get(SESSION_KEY))
    if pk is not None:
        PushSubscription.objects.filter(user=user, pk=pk).delete()


# -- naming a device for its owner --------------------------------------------------------

_BROWSERS = [  # the first that matches: Edge and Opera say "Chrome" too, Chrome "Safari"
    (r"Edg(e|A|iOS)?/", "Edge"),
    (r"OPR/|Opera", "Opera"),
    (r"SamsungBrowser/", "Samsung Internet"),
    (r"Firefox/|FxiOS/", "Firefox"),
    (r"Chrome/|CriOS/|Chromium/", "Chrome"),
    (r"Safari/", "Safari"),
]
_SYSTEMS = [
    (r"iPhone", "iPhone"),
    (r"iPad", "iPad"),
    (r"Android", "Android"),
    (r"Windows", "Windows"),
    (r"Mac OS X|Macintosh", "macOS"),
    (r"CrOS", "ChromeOS"),
    (r"Linux", "Linux"),
]


def device_name(user_agent: str) -> str:
    """ "Chrome on Android", from the browser's User-Agent header, for the profile's list."""
    browser = next((name for pattern, name in _BROWSERS if re.search(pattern, user_agent)), "")
    system = next((name for pattern, name in _SYSTEMS if re.search(pattern, user_agent)), "")
    if browser and system:
        return pgettext("a device: browser on system", "%(browser)s on %(system)s") % {
            "browser": browser,
            "system": system,
        }
    return browser or system or _("A browser")
