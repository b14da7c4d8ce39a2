"""Play across days: the moment the clock tests start at, and the worker's jobs."""

import datetime as dt

from django.utils import timezone

from games import jobs

START = dt.datetime(2026, 3, 2, 12, 0, tzinfo=dt.UTC)
DAY = dt.timedelta(days=1)


def run_worker(now=None):
    return jobs.run_all(now or timezone.now())
