"""The worker's delivery of the outbox (``models.Notification``): claiming the rows,
sending each through its channel (``mail``, ``push``), retrying, giving up.

Safe on two workers at once: notifications are unique per (user, kind, key), and
sending takes each outbox row under a lock that another worker skips. A send that fails
is tried again later (``RETRY_DELAYS``), then given up. A worker asked to stop ends
after the row in hand (``games.worker_stop``).
"""

from __future__ import annotations

import logging
from datetime import timedelta

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from shanghaien.lib import webpush

from ..worker_stop import stopping
from . import push
from .mail import compose, send_mail, unsubscribe_headers
from .models import Notification

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
    message = push.compose(notification)
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
