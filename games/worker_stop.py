"""Whether the worker was asked to stop: the one flag its long jobs look at between two
items (the deadlines, the digests, the outbox, the computer opponents' turns).

Its own module, below every job, so that the jobs and the schedule that runs them
(``games.jobs``) both import it and neither imports the other for it.
"""

from __future__ import annotations


class StopRequest:
    """Whether the worker was asked to stop (``run_worker`` sets it on SIGTERM or SIGINT).

    The jobs that work through many items look at it between two: each item is its own
    transaction, so a stop waits for the item in hand, not for the whole queue. A plain
    attribute, so that a signal handler sets it without taking a lock.
    """

    def __init__(self) -> None:
        self.reason = ""

    def __bool__(self) -> bool:
        return bool(self.reason)


stopping = StopRequest()
