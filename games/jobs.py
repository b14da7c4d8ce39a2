"""The worker's schedule: which job runs, and how often (``JOBS``, ``FAST_JOBS``):
timeouts and reminders, the digests, sending the queued emails and push notifications
(the notify slice's, ``games.notify``), the computer opponents' turns, the analysis of
finished games and the deletion of guests whose time is up.

Every job is idempotent and safe on two workers at once: timeouts lock the game row,
the outbox its rows (``games.notify.send``), the bots their turns. A worker asked to
stop ends the jobs that work through many items after the item in hand
(``games.worker_stop``). The worker loop beats (``beat``) so that anyone can tell
whether it runs (``worker_heartbeat_age``).
"""

from __future__ import annotations

import os
import socket

from django.db.models import Max
from django.utils import timezone

from .bot_turns import BOT_TICK_SECONDS, play_bot_turns
from .models import Game, WorkerHeartbeat
from .notify.queue import queue_digests
from .notify.send import send_notifications, send_pushes
from .services import analysis, endings, guest_expiry
from .worker_stop import stopping

# The worker runs its jobs this often (run_worker --interval) and beats before each job.
WORKER_INTERVAL_SECONDS = 60.0
# A beat older than this means no worker runs: three missed loops, so one slow loop
# (a long queue of emails) does not count as down.
WORKER_STALE_SECONDS = 3 * WORKER_INTERVAL_SECONDS


# The due games one round of the deadline job handles at most (each in its own
# transaction); the rest are due still and wait for the next round.
DEADLINE_BATCH = 500


def check_deadlines(now=None) -> dict:
    """End the games whose time ran out; queue one reminder per turn when a fifth is left.

    Only the games whose stored ``due_at`` has come are read, on the partial index
    ``game_due_idx``: one statement when nothing is due, whatever the number of games.
    Each is handled in its own transaction (``endings.do_due``), which folds the
    mover's holidays in again before it acts.
    """
    now = now or timezone.now()
    done = {"timeout": 0, "reminder": 0, "": 0}
    due = (
        Game.objects.filter(status=Game.Status.ACTIVE, due_at__lte=now)
        .order_by("due_at")
        .values_list("pk", flat=True)[:DEADLINE_BATCH]
    )
    for game_id in list(due):
        if stopping:
            break
        done[endings.do_due(game_id, now)] += 1
    return {"timeouts": done["timeout"], "reminders": done["reminder"]}


# Push notifications go out within this many seconds of being queued.
PUSH_TICK_SECONDS = 2.0

# The analysis after the game runs beside the pushes, a short chunk each second
# (services.analysis.BUDGET_SECONDS), so that a push waits at most that long (the bots'
# turns have a loop of their own).
ANALYSIS_TICK_SECONDS = 1.0


def analyse_games(now=None) -> int:
    """Weigh the next decisions of finished games (the analysis after the game)."""
    return analysis.do_analyse()


def worker_name() -> str:
    """The default heartbeat name: one per host (a container), the same across restarts."""
    return socket.gethostname()


def beat(name: str | None = None, now=None) -> None:
    """Record that the worker ``name`` is alive now."""
    now = now or timezone.now()
    name = (name or worker_name())[: WorkerHeartbeat._meta.get_field("name").max_length]
    WorkerHeartbeat.objects.update_or_create(
        name=name,
        defaults={"beat_at": now, "host": socket.gethostname()[:255], "pid": os.getpid()},
    )


def worker_heartbeat_age(now=None) -> float | None:
    """Seconds since the newest beat of any worker; None when no worker ever beat.

    Compare with ``WORKER_STALE_SECONDS``: older means no worker is running.
    """
    newest = WorkerHeartbeat.objects.aggregate(newest=Max("beat_at"))["newest"]
    if newest is None:
        return None
    now = now or timezone.now()
    # The worker's clock may run slightly ahead of this host's: never a negative age.
    return max(0.0, (now - newest).total_seconds())


def expire_guests(now=None) -> int:
    """Delete the guests whose time is up, with their games (services.guest_expiry): only
    the due ones are read, on an index. The number deleted."""
    deleted = 0
    for user_id in guest_expiry.due_guests(now):
        if stopping:
            break
        deleted += guest_expiry.do_expire_guest(user_id, now)
    return deleted


JOBS = {
    "deadlines": check_deadlines,
    "digests": queue_digests,
    "notifications": send_notifications,
    "pushes": send_pushes,
    "bots": play_bot_turns,
    "analysis": analyse_games,
    "guests": expire_guests,
}
# Jobs that run more often than the worker's interval (seconds between two runs). The
# worker's loop plays the bots' turns on a thread of its own, every
# bot_turns.tick_seconds() (run_worker); the others between its slow jobs.
FAST_JOBS = {
    "bots": BOT_TICK_SECONDS,
    "analysis": ANALYSIS_TICK_SECONDS,
    "pushes": PUSH_TICK_SECONDS,
}


def run_all(now=None) -> dict:
    return {name: job(now) for name, job in JOBS.items()}
