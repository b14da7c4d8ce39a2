"""The background worker: deadlines, reminders, digests and emails, in a loop or once."""

import logging
import time

from django.core.management.base import BaseCommand
from django.db import close_old_connections

from games import bot_turns
from games.jobs import FAST_JOBS, JOBS, WORKER_INTERVAL_SECONDS, beat, worker_name
from shanghaien.lib import metrics

log = logging.getLogger(__name__)


def fast_tick(name: str) -> float:
    """Seconds between two runs of the fast job ``name`` (the bots' from the settings)."""
    return bot_turns.tick_seconds() if name == "bots" else FAST_JOBS[name]


class Command(BaseCommand):
    help = (
        "Run the deadline, reminder, digest and email jobs, the computer opponents' "
        "turns and the analysis of finished games (in a loop, or once for cron)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--once", action="store_true", help="run the jobs once and exit")
        parser.add_argument(
            "--job", choices=sorted(JOBS), action="append", help="only this job (repeatable)"
        )
        parser.add_argument(
            "--interval",
            type=float,
            default=WORKER_INTERVAL_SECONDS,
            help="seconds between runs",
        )
        parser.add_argument(
            "--name", default=None, help="the heartbeat's name (default: this host's name)"
        )

    def handle(self, *args, once=False, job=None, interval=WORKER_INTERVAL_SECONDS, **options):
        names = job or list(JOBS)
        heartbeat = options.get("name") or worker_name()
        fast = [name for name in names if name in FAST_JOBS]  # the bots' turns
        slow = [name for name in names if name not in FAST_JOBS]
        if not once:
            metrics.serve_worker_metrics()  # with WORKER_METRICS_PORT: the jobs' durations
        while True:
            # A connection broken by a database outage is dropped here and opened anew
            # by the next query, so the loop recovers once the database is back.
            close_old_connections()
            if not slow:
                self._beat(heartbeat)
            for name in slow:
                # Before each job, not once a loop: a long job (many emails) then does
                # not make a working worker look stale.
                self._beat(heartbeat)
                self._run(name)
            for name in fast:
                self._run(name)
            if once:
                return
            if not fast:
                time.sleep(interval)
                continue
            # Until the next round of the slow jobs, the fast ones run at their own pace.
            tick = min(fast_tick(name) for name in fast)
            end = time.monotonic() + interval
            while (left := end - time.monotonic()) > 0:
                time.sleep(min(tick, left))
                close_old_connections()
                for name in fast:
                    self._run(name, quiet=True)

    def _run(self, name, quiet=False):
        try:
            with metrics.job_run(name):  # timed; a failure counted and reported
                result = JOBS[name]()
        except Exception:  # one failing job must not stop the others
            self.stderr.write(f"{name}: failed")
            log.exception("job %s failed", name)
            return
        if result or not quiet:  # a fast job that found nothing to do says nothing
            self.stdout.write(f"{name}: {result}")

    def _beat(self, name):
        try:
            beat(name)
        except Exception:  # no beat this time (database down?): the jobs still run
            self.stderr.write("heartbeat: failed")
            log.exception("heartbeat %s failed", name)
