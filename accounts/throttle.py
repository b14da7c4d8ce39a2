"""When a refused account action may be tried again.

allauth counts each action (``settings.ACCOUNT_RATE_LIMITS``: rates written
"amount/duration/per", as allauth's documentation describes them) in its own cache
entries, whose layout is allauth's private business. What this module knows is
public: the rates. An attempt refused now may succeed once the longest window of the
action's rates has passed since (every attempt counted before it has left its window
by then; refused attempts are not counted). That moment is kept from the first refusal
on, so the wait counts down over repeated refusals instead of starting again.
"""

from __future__ import annotations

import hashlib
import math
import time

from allauth.account.adapter import get_adapter
from django.conf import settings
from django.core.cache import cache

UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
UNKNOWN = 60  # seconds, for an action without a rate in the settings


def windows(action: str, authenticated: bool) -> list[float]:
    """The windows, in seconds, of the rates that can refuse ``action`` for this client
    (a rate per user only for a logged-in one)."""
    rates = (getattr(settings, "ACCOUNT_RATE_LIMITS", None) or {}).get(action) or ""
    found = []
    for rate in filter(None, (part.strip() for part in rates.split(","))):
        _amount, duration, *per = rate.split("/")
        if per == ["user"] and not authenticated:
            continue
        found.append(float(duration[:-1] or 1) * UNITS[duration[-1]])
    return found


def wait_for(request, action: str, key: str | None = None, now: float | None = None) -> int:
    """Whole seconds, at least 1, until ``action``, just refused to this request, may
    succeed again. ``key`` is what the action's rates per key count (the address or the
    login tried), if any."""
    now = time.time() if now is None else now
    authenticated = request.user.is_authenticated
    longest = max(windows(action, authenticated), default=UNKNOWN)
    who = [action, get_adapter(request).get_client_ip(request)]
    if key is not None:
        who.append(hashlib.sha256(key.encode()).hexdigest())
    if authenticated:
        who.append(str(request.user.pk))
    record = "throttle:" + ":".join(who)
    if not cache.add(record, now + longest, timeout=math.ceil(longest)):
        free_at = cache.get(record)
        if free_at is None or free_at <= now:  # it ran out meanwhile: refused again
            cache.set(record, now + longest, timeout=math.ceil(longest))
            free_at = now + longest
        return max(1, math.ceil(free_at - now))
    return max(1, math.ceil(longest))
