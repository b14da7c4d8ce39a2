"""Is a worker running? Exit 0 when some worker beat recently, 1 otherwise (a healthcheck)."""

from typing import NoReturn

from django.core.management.base import BaseCommand
from django.db import DatabaseError

from games.jobs import WORKER_STALE_SECONDS, worker_heartbeat_age


class Command(BaseCommand):
    help = "Exit 0 if a worker's last heartbeat is fresh, 1 if it is stale or missing."

    def add_arguments(self, parser):
        parser.add_argument(
            "--max-age",
            type=float,
            default=WORKER_STALE_SECONDS,
            help=f"seconds a beat may be old (default {WORKER_STALE_SECONDS:g})",
        )

    def handle(self, *args, max_age=WORKER_STALE_SECONDS, **options):
        try:
            age = worker_heartbeat_age()
        except DatabaseError as error:
            self._down(f"worker unknown: the database does not answer ({error})")
        if age is None:
            self._down("worker down: no heartbeat recorded yet")
        if age > max_age:
            self._down(f"worker down: last beat {age:.0f} s ago (limit {max_age:g} s)")
        self.stdout.write(f"worker ok: last beat {age:.0f} s ago")

    def _down(self, message) -> NoReturn:
        # One line, and the exit status the healthcheck reads (CommandError would add
        # "CommandError:" and, under call_command, not exit at all).
        self.stderr.write(" ".join(message.split()))
        raise SystemExit(1)
