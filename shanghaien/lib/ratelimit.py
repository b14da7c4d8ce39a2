"""Limits on what one person may do in a window of time, on Django's cache.

Each limit is a counter per (name, who) that the cache increments atomically
(Redis' INCR; a lock in local memory), so a burst of concurrent requests cannot slip
past it the way counting rows and then inserting would. With ``REDIS_URL`` every
process shares the counters.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

from django.core.cache import cache
from django.utils.translation import gettext, ngettext

from .errors import RateLimited


@dataclass(frozen=True)
class Limit:
    name: str
    count: int  # at most this many …
    seconds: int  # … in each window of this many seconds
    message: str  # said to the person refused, before "Try again in N s."

    def hit(self, who, now: float | None = None) -> None:
        """Count one more for ``who``, or raise ``RateLimited``.

        The window opens with the first hit and closes ``seconds`` later (the counter
        expires then), so a burst is measured from its start, never split in two.
        """
        now = time.time() if now is None else now
        key = f"ratelimit:{self.name}:{who}"
        # add() writes only where nothing is: of concurrent first hits, one opens the window.
        if cache.add(key, 0, timeout=self.seconds):
            cache.set(f"{key}:opened", now, timeout=self.seconds)
        try:
            used = cache.incr(key)
        except ValueError:  # the window closed between add and incr: open a new one
            cache.add(key, 0, timeout=self.seconds)
            used = cache.incr(key)
        if used > self.count:
            opened = cache.get(f"{key}:opened", now)
            wait = max(1, math.ceil(opened + self.seconds - now))
            # Two sentences: the refusal, then when to try again.
            message = gettext("%(refusal)s %(try_again)s")
            raise RateLimited(
                message % {"refusal": self.message, "try_again": try_again_in(wait)}, wait
            )


def duration(seconds: int) -> str:
    """A wait in words ("3 minutes"), in the largest unit that is at least one, rounded up."""
    if seconds >= 3600:
        hours = math.ceil(seconds / 3600)
        return ngettext("%(n)d hour", "%(n)d hours", hours) % {"n": hours}
    if seconds >= 60:
        minutes = math.ceil(seconds / 60)
        return ngettext("%(n)d minute", "%(n)d minutes", minutes) % {"n": minutes}
    return ngettext("%(n)d second", "%(n)d seconds", seconds) % {"n": seconds}


def try_again_in(seconds: int) -> str:
    return gettext("Try again in %(duration)s.") % {"duration": duration(seconds)}


class FrameBudget:
    """A token bucket for one websocket: ``burst`` frames at once, ``per_second`` after.

    Kept in the consumer's memory: a socket's frames all reach the same process.
    """

    def __init__(self, per_second: float, burst: int, clock=time.monotonic):
        self.per_second = per_second
        self.burst = burst
        self.clock = clock
        self.tokens = float(burst)
        self.at = clock()

    def take(self) -> float:
        """0 if a frame may pass now (and count it), else the seconds until one may."""
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.per_second)
        self.at = now
        if self.tokens >= 1:
            self.tokens -= 1
            return 0.0
        return (1 - self.tokens) / self.per_second
