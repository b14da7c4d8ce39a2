"""The background worker: deadlines, reminders, digests and emails, in a loop or once."""

import logging
import time

from django.core.management.base import BaseCommand
from django.db import close_old_connections

from games.jobs import JOBS


class Command(BaseCommand):
    help = "Run the deadline, reminder, digest and email jobs (in a loop, or once for cron)."

    def add_arguments(self, parser):
        parser.add_argument("--once", action="store_true", help="run the jobs once and exit")
        parser.add_argument(
            "--job", choices=sorted(JOBS), action="append", help="only this job (repeatable)"
        )
        parser.add_argument("--interval", type=float, default=60.0, help="seconds between runs")

    def handle(self, *args, once=False, job=None, interval=60.0, **options):
        names = job or list(JOBS)
        while True:
            close_old_connections()
            for name in names:
                try:
                    result = JOBS[name]()
                except Exception:  # one failing job must not stop the others
                    self.stderr.write(f"{name}: failed")
                    logging.getLogger(__name__).exception("job %s failed", name)
                    continue
                self.stdout.write(f"{name}: {result}")
            if once:
                return
            time.sleep(interval)
