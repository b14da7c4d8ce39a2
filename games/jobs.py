"""The worker's jobs: timeouts, reminders, digests, sending the queued emails and push
notifications, the computer opponents' turns and the analysis of finished games.

Every job is idempotent and safe on two workers at once: timeouts lock the game row,
notifications are unique per (user, kind, key), and sending takes each outbox row
under a lock that another worker skips. A send that fails is tried again later
(``RETRY_DELAYS``), then given up. A worker asked to stop ends the jobs that work
through many items after the item in hand (``stopping``). The worker loop beats
(``beat``) so that anyone can tell whether it runs (``worker_heartbeat_age``).
"""

from __future__ import annotations

import logging
import os
import socket
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Exists, Max, OuterRef, Q
from django.utils import timezone

from accounts.models import next_digest_at
from shanghaien.lib import webpush

from . import pushes
from .bot_turns import BOT_TICK_SECONDS, play_bot_turns
from .emails import compose, send_mail, unsubscribe_headers
from .models import Game, Notification, WorkerHeartbeat
from .services import analysis, endings, notify
from .worker_stop import stopping

log = logging.getLogger(__name__)


# After the n-th failed try to send an email, wait RETRY_DELAYS[n - 1] before the next;
# once the last delay is used up, the next failure gives the email up for good. So five
# tries over about an hour and a half: long enough to ride out a mail server restart,
# short enough that a "your turn" email still means something.
RETRY_DELAYS = (
    timedelta(minutes=1),
    timedelta(minutes=4),
    timedelta(minutes=16),
    timedelta(minutes=64),
)
MAX_ATTEMPTS = len(RETRY_DELAYS) + 1

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


def queue_digests(now=None) -> int:
    """One digest a day for each player who chose it and has games waiting, at
    ``DIGEST_HOUR`` of their own time zone.

    One statement finds the players whose digest is due (``user_digest_due_idx``), each
    with whether a game waits for them (an EXISTS on the games' (status, to_move)
    index); the digest is queued under the player's local date, so at most one a day;
    then every due player's next time is set, one UPDATE per time zone among them.
    """
    now = now or timezone.now()
    users = get_user_model().objects
    waiting = Game.objects.filter(status=Game.Status.ACTIVE, to_move=OuterRef("pk"))
    due = list(
        users.filter(daily_digest=True, digest_due_at__lte=now)
        .annotate(waiting=Exists(waiting))
        .order_by("digest_due_at", "pk")[:DIGEST_BATCH]
    )
    queued = 0
    zones: dict[str, list[int]] = {}
    for user in due:
        if stopping:
            break
        if user.waiting and user.is_active and user.email:
            day = now.astimezone(user.zone).date().isoformat()
            queued += notify.digest(user, day)
        zones.setdefault(user.time_zone, []).append(user.pk)
    for name, ids in zones.items():
        upcoming = next_digest_at(users.model(time_zone=name).zone, now)
        users.filter(pk__in=ids, daily_digest=True).update(digest_due_at=upcoming)
    return queued


# The players one round of the digest job reads at most; the rest wait a round.
DIGEST_BATCH = 2000


def _fit(field: str, text: str) -> str:
    """``text`` cut to the column's length, so that saving it cannot fail."""
    limit = Notification._meta.get_field(field).max_length
    text = " ".join(text.split())  # tracebacks and SMTP replies span lines
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _error_text(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}" if str(error) else type(error).__name__


def due(now) -> Q:
    """An outbox row is due from when it was queued, or after a failed try, from the time
    of its next (``next_attempt_at``)."""
    return Q(next_attempt_at__isnull=True) | Q(next_attempt_at__lte=now)


def _pending(now, channel=None):
    """Rows still to send whose next try is due (of one channel, if given)."""
    rows = Notification.objects.filter(due(now), sent_at__isnull=True)
    return rows.filter(channel=channel) if channel else rows


def send_notifications(now=None, channel=None) -> int:
    """Send what the outbox holds, one row at a time under a lock other workers skip.

    A row is marked done (sent or skipped) in the transaction that sends it. A failed
    send rolls back that row's changes alone and records the try instead: the row waits
    for ``RETRY_DELAYS`` and, after ``MAX_ATTEMPTS`` tries, is marked failed and left
    alone. A row that failed is not tried again in the same run, so the run ends. A push
    whose device the push service no longer knows (404, 410) is done at once, and the
    device forgotten.
    """
    now = now or timezone.now()
    sent, failed = 0, []
    while not stopping:  # the rest waits for the next run
        with transaction.atomic():
            notification = (
                _pending(now, channel)
                .select_for_update(skip_locked=True, of=("self",))
                .exclude(id__in=failed)
                .select_related("user", "game", "subscription")
                .order_by("id")
                .first()
            )
            if notification is None:
                return sent
            # set once the mail server is asked: only then is it the address's fault
            tried = {"address": ""}
            try:
                with transaction.atomic():
                    if notification.channel == Notification.Channel.PUSH:
                        _push(notification, now)
                    else:
                        _email(notification, tried)
                    notification.sent_at = now
                    notification.save(update_fields=_DONE_FIELDS)
            except webpush.Failed as error:  # the push service's answer, or the network's
                log.warning("push notification %s not delivered: %s", notification.pk, error)
                failed.append(notification.pk)
                _record_failure(notification, error, "", now)
            except Exception as error:
                log.exception("sending notification %s failed", notification.pk)
                failed.append(notification.pk)  # not again in this run, whatever the delay
                _record_failure(notification, error, tried["address"], now)
            else:
                if notification.outcome == Notification.Outcome.SENT:
                    sent += 1
    return sent


_DONE_FIELDS = ["sent_at", "outcome", "detail", "attempts", "address", "next_attempt_at"]


def _email(notification: Notification, tried: dict) -> None:
    """Send one email row and mark it sent or skipped (``tried``: the address asked)."""
    email = compose(notification)
    if isinstance(email, str):
        notification.outcome = Notification.Outcome.SKIPPED
        notification.detail = _fit("detail", email)
        return
    subject, body = email
    address = tried["address"] = notification.user.email
    send_mail(subject, body, None, [address], headers=unsubscribe_headers(notification))
    notification.attempts += 1
    notification.address = address
    notification.outcome = Notification.Outcome.SENT
    notification.next_attempt_at = None


def _push(notification: Notification, now) -> None:
    """Send one push row to its device and mark it done; ``webpush.Failed`` to try again."""
    message = pushes.compose(notification)
    if isinstance(message, str):
        notification.outcome = Notification.Outcome.SKIPPED
        notification.detail = _fit("detail", message)
    else:
        device = notification.subscription
        notification.attempts += 1
        try:
            webpush.send(device.endpoint, device.p256dh, device.auth, device.vapid_key, message)
        except (webpush.Gone, webpush.EndpointRefused) as error:
            # The browser unsubscribed, or the device was subscribed with a key or to a
            # service the server no longer uses: forget it, its other pushes are skipped.
            log.info("forgetting push device %s of user %s: %s", device.pk, device.user_id, error)
            device.delete()
            notification.subscription = None  # the row stays, the device is gone
            notification.outcome = Notification.Outcome.FAILED
            notification.detail = _fit("detail", f"device forgotten: {error}")
        else:
            device.last_success_at = now
            device.save(update_fields=["last_success_at"])
            notification.outcome = Notification.Outcome.SENT
            notification.next_attempt_at = None


def send_pushes(now=None) -> int:
    """Send the queued push notifications (the worker runs this every few seconds, as a
    push is worth little late; emails wait for the worker's interval)."""
    return send_notifications(now, channel=Notification.Channel.PUSH)


def _record_failure(notification: Notification, error: BaseException, address: str, now) -> None:
    # The in-memory row may hold changes of the rolled-back try: start again from the
    # stored one (still locked by this transaction) and count the try on it.
    notification.refresh_from_db()
    notification.attempts += 1
    notification.address = address
    notification.detail = _fit("detail", _error_text(error))
    if notification.attempts >= MAX_ATTEMPTS:
        notification.outcome = Notification.Outcome.FAILED
        notification.sent_at = now  # done: given up
        notification.next_attempt_at = None
        log.error(
            "gave up notification %s to user %s after %s tries",
            notification.pk,
            notification.user_id,
            notification.attempts,
        )
    else:
        notification.next_attempt_at = now + RETRY_DELAYS[notification.attempts - 1]
    notification.save(update_fields=_DONE_FIELDS)


def email_undeliverable(user) -> bool:
    """Whether the last email to the user's present address failed for good.

    Only sent and failed emails tell about the address (a skipped one was never tried),
    and only those to the address the user has now: a new address starts clean, and a
    later success clears the warning.
    """
    if not user.email:
        return False
    last = (
        Notification.objects.filter(
            user=user,
            address=user.email,
            outcome__in=[Notification.Outcome.SENT, Notification.Outcome.FAILED],
        )
        .order_by("-sent_at", "-id")
        .values_list("outcome", flat=True)
        .first()
    )
    return last == Notification.Outcome.FAILED


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


JOBS = {
    "deadlines": check_deadlines,
    "digests": queue_digests,
    "notifications": send_notifications,
    "pushes": send_pushes,
    "bots": play_bot_turns,
    "analysis": analyse_games,
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
