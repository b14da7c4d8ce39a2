"""The background worker: deadlines, reminders, digests and emails, in a loop or once."""

import logging
import time

from django.core.management.base import BaseCommand
from django.db import close_old_connections

from games.jobs import JOBS, WORKER_INTERVAL_SECONDS, beat, worker_name

log = logging.getLogger(__name__)


class Command(BaseCommand):
    help = "Run the deadline, reminder, digest and email jobs (in a loop, or once for cron)."

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
        while True:
            # A connection broken by a database outage is dropped here and opened anew
            # by the next query, so the loop recovers once the database is back.
            close_old_connections()
            for name in names:
                # Before each job, not once a loop: a long job (many emails) then does
                # not make a working worker look stale.
                self._beat(heartbeat)
                try:
                    result = JOBS[name]()
                except Exception:  # one failing job must not stop the others
                    self.stderr.write(f"{name}: failed")
                    log.exception("job %s failed", name)
                    continue
                self.stdout.write(f"{name}: {result}")
            if once:
                return
            time.sleep(interval)

    def _beat(self, name):
        try:
            beat(name)
        except Exception:  # no beat this time (database down?): the jobs still run
            self.stderr.write("heartbeat: failed")
            log.exception("heartbeat %s failed", name)
