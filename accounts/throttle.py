"""When a refused account action may be tried again: read from allauth's own counters.

allauth counts each action (``settings.ACCOUNT_RATE_LIMITS``) in the project's cache, as
a list of the times of the attempts still in their window, newest first. A rate
"n per period" frees its next slot when the n-th newest attempt leaves the window.
"""

from __future__ import annotations

import math
import time

from allauth.core.internal import ratelimit as allauth_ratelimit
from django.core.cache import cache

APP = "allauth.account"


def wait_for(request, action: str, key: str | None = None, now: float | None = None) -> int:
    """Whole seconds until ``action`` is allowed again for this request; 0 if it is.

    Rates counted per key are looked at only when ``key`` is given, rates per user only
    for a logged-in user. Where nothing can be read (a rate per key with no key), the
    longest window of the action's rates stands in: the wait is never longer.
    """
    now = time.time() if now is None else now
    rates = allauth_ratelimit.get_rates(app=APP, action=action)
    wait, unknown = 0.0, 0.0
    for rate in rates:
        if (rate.per == "key" and key is None) or (
            rate.per == "user" and not request.user.is_authenticated
        ):
            unknown = max(unknown, rate.duration)
            continue
        cache_key = allauth_ratelimit.get_cache_key(
            request, app=APP, action=action, rate=rate, key=key
        )
        live = [at for at in cache.get(cache_key, []) if at > now - rate.duration]
        if len(live) >= rate.amount:
            wait = max(wait, live[rate.amount - 1] + rate.duration - now)
    if wait <= 0:
        wait = unknown
    return max(1, math.ceil(wait)) if wait > 0 else 0
