"""What the database says about the worker's backlog, for /metrics and /healthz: the
outbox's lag and the computer opponents' turns waiting.

Read at scrape time, with cheap queries: the outbox's pending rows through the index on
``sent_at`` (pending rows are few, done rows many); the games a computer opponent has to
move as the worker finds them (``bot_turns.bots_to_move``).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime

from django.db import DatabaseError
from django.db.models import Count, Min
from django.db.models.functions import Coalesce
from django.utils import timezone
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from .bot_turns import bots_to_move
from .models import Notification
from .notify.send import due

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Outbox:
    lag_s: float  # how long the oldest due notification has been due; 0 when none is
    due: int  # pending and due: the worker should be sending them now
    retrying: int  # pending, waiting for the time of their next try (RETRY_DELAYS)


def outbox(now: datetime | None = None) -> Outbox:
    """The outbox's backlog now.

    A notification is due from when it was queued, or, after a failed try, from its
    ``next_attempt_at``: one waiting for its retry is not late, and its lag starts when
    the retry is due, not when it was first queued.
    """
    now = now or timezone.now()
    is_due = due(now)
    found = Notification.objects.filter(sent_at__isnull=True).aggregate(
        due=Count("id", filter=is_due),
        retrying=Count("id", filter=~is_due),
        since=Min(Coalesce("next_attempt_at", "created_at"), filter=is_due),
    )
    since = found["since"]
    lag = max(0.0, (now - since).total_seconds()) if since is not None else 0.0
    return Outbox(lag_s=lag, due=found["due"], retrying=found["retrying"])


@dataclass(frozen=True)
class BotTurns:
    waiting: int  # active games whose player to move is a computer opponent
    oldest_s: float  # how long the longest of those turns has lasted; 0 when none


def bot_turns(now: datetime | None = None) -> BotTurns:
    now = now or timezone.now()
    found = bots_to_move().aggregate(waiting=Count("id"), since=Min("turn_started_at"))
    since = found["since"]
    oldest = max(0.0, (now - since).total_seconds()) if since is not None else 0.0
    return BotTurns(waiting=found["waiting"], oldest_s=oldest)


class BacklogCollector(Collector):
    """The outbox's and the bots' backlog, read from the database at each scrape.

    A database that does not answer leaves these series out of that scrape (logged):
    the page's other series still come, and /healthz names the database.
    """

    def collect(self):
        try:
            box, bots = outbox(), bot_turns()
        except DatabaseError as error:
            log.warning("metrics: the backlog could not be read: %s", error)
            return
        yield GaugeMetricFamily(
            "shanghaien_outbox_lag_seconds",
            "How long the oldest due notification (email or push) has waited to be sent",
            value=box.lag_s,
        )
        pending = GaugeMetricFamily(
            "shanghaien_outbox_pending",
            "Notifications not yet sent: due now, or waiting for the time of a retry",
            labels=["state"],
        )
        pending.add_metric(["due"], box.due)
        pending.add_metric(["retrying"], box.retrying)
        yield pending
        yield GaugeMetricFamily(
            "shanghaien_bot_turns_waiting",
            "Active games whose turn belongs to a computer opponent",
            value=bots.waiting,
        )
        yield GaugeMetricFamily(
            "shanghaien_bot_turn_oldest_seconds",
            "How long the longest of the computer opponents' current turns has lasted",
            value=bots.oldest_s,
        )
