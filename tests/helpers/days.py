"""Play across days: the moment the clock tests start at, and the worker's jobs."""

import datetime as dt
import threading

from django.db import connection
from django.utils import timezone

from games import jobs

START = dt.datetime(2026, 3, 2, 12, 0, tzinfo=dt.UTC)
DAY = dt.timedelta(days=1)


def run_worker(now=None):
    return jobs.run_all(now or timezone.now())


def at_once(job, workers: int = 2) -> list:
    """What ``job()`` returned in each of ``workers`` threads let go at the same moment,
    each on its own database connection (closed after it): two workers racing."""
    barrier = threading.Barrier(workers)
    results = []

    def work():
        try:
            barrier.wait()
            results.append(job())
        finally:
            connection.close()

    threads = [threading.Thread(target=work) for _ in range(workers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return results


def still_running_at(game, moment, traveller) -> bool:
    """Travel to ``moment``, run the worker once: whether the game is still active."""
    traveller.move_to(moment)
    run_worker()
    game.refresh_from_db()
    return game.status == "active"
