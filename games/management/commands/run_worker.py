"""The background worker: deadlines, reminders, digests and emails, in a loop or once.

SIGTERM or SIGINT stops it within seconds with exit status 0, also as PID 1 of a
container (where a signal without a handler is ignored): a sleep ends at once, a job that
works through many items ends after the item in hand (``games.worker_stop.stopping``), and a job
still running ``--grace`` seconds after the signal is abandoned, its open transaction
rolled back. Every job works item by item, each in a transaction of its own, and is
idempotent, so nothing is left half done: what was abandoned is done by the next run. A
second signal abandons the job in hand at once.

The computer opponents' turns run in a loop of their own, on a thread beside the other
jobs, so that a bot's turn never waits behind an analysis or a slow mail server; each
turn is claimed (``games.bot_turns``), so that any number of workers share them.

Every line the worker writes is a log record of the logger ``games.worker``; a job's line
carries the fields ``job``, ``result`` and ``duration_ms`` (one JSON object under
DJANGO_LOG_FORMAT=json). Run once (``--once``, cron) it writes a line for every job; in
its loop only for a job that did something (``worked``), a failure, and at most every
``IDLE_LINE_SECONDS`` one line saying that it still runs with nothing to do (the idle
rounds' lines are DEBUG records, shown with DJANGO_LOG_LEVEL=DEBUG): a quiet
developer's console (``make run`` runs a round every 3 s), and no lost information, as
the heartbeat row and the metrics record every round.
"""

import contextlib
import logging
import os
import select
import signal
import threading
import time

from django.core.management.base import BaseCommand
from django.db import close_old_connections, connections

from games import bot_turns
from games.jobs import FAST_JOBS, JOBS, WORKER_INTERVAL_SECONDS, beat, worker_name
from games.services import upgrades
from games.worker_stop import stopping
from shanghaien.lib import metrics

log = logging.getLogger("games.worker")

# The signals that stop the worker: a container's stop, and Ctrl-C on a developer's machine.
STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)
# How long the job in hand may go on after a stop signal before it is abandoned: well
# inside the 5 seconds a stop may take, and a container engine's 10 seconds of grace.
STOP_GRACE_SECONDS = 3.0
# In its loop, a worker that had nothing to do says so at most this often (seconds).
IDLE_LINE_SECONDS = 600.0


def worked(result) -> bool:
    """Whether a job's result says it did something: a count above nought, a mapping with
    any such count, any other non-empty answer."""
    if isinstance(result, dict):
        return any(worked(value) for value in result.values())
    if isinstance(result, bool) or result is None:
        return bool(result)
    if isinstance(result, int | float):
        return result > 0
    return bool(result)


def fast_tick(name: str) -> float:
    """Seconds between two runs of the fast job ``name`` (the bots' from the settings)."""
    return bot_turns.tick_seconds() if name == "bots" else FAST_JOBS[name]


class Abandoned(BaseException):
    """Raised into the job in hand when the stop waits for it no longer.

    A BaseException, so that no job's ``except Exception`` takes it for a failure of its
    own, and every ``transaction.atomic`` it passes on its way out rolls back.
    """


class Stop:
    """SIGTERM and SIGINT ask the worker to stop, while it runs (a context manager).

    The signal handler only sets ``games.worker_stop.stopping`` and wakes the sleep and the
    stop's thread through a pipe: it takes no lock and writes no log line, as a handler
    may run in the middle of either. The thread logs the "stopping" line at once,
    whatever the job in hand is doing, and signals again once the grace is over.
    """

    def __init__(self, grace: float = STOP_GRACE_SECONDS):
        self.grace = grace
        self.in_hand = ""  # the job running now, if any
        self.in_hand_when_asked = ""  # the job that was running when the stop was asked
        self.signal = ""  # the name of the signal that stopped the worker, once it has
        self.asked_at = 0.0
        self.previous = {}
        self.finished = threading.Event()
        self.wake_read, self.wake_write = os.pipe()
        os.set_blocking(self.wake_write, False)
        self.watcher = threading.Thread(target=self._watch, name="worker-stop", daemon=True)

    def __enter__(self):
        stopping.reason = ""
        # Signal handlers belong to the main thread; elsewhere (a test's thread) no signal
        # can stop the loop, which still ends with --once.
        if threading.current_thread() is threading.main_thread():
            for signum in STOP_SIGNALS:
                self.previous[signum] = signal.signal(signum, self._handle)
        self.watcher.start()
        return self

    def __exit__(self, *exc_info):
        self.finished.set()
        self._wake()  # the stop's thread ends (and logs nothing if no signal came)
        self.watcher.join(timeout=1)
        for signum, handler in self.previous.items():  # after the thread's last signal
            signal.signal(signum, handler)
        os.close(self.wake_read)
        os.close(self.wake_write)
        # The request ends with this run: jobs run later in this process (a test's) work.
        self.signal, stopping.reason = stopping.reason, ""

    def sleep(self, seconds: float) -> None:
        """Wait ``seconds``, or until a stop is asked (at once if it already was)."""
        if not stopping:
            # The handler writes to the pipe before it returns, and select goes on
            # waiting after a signal (PEP 475): the pipe is what ends the wait.
            select.select([self.wake_read], [], [], seconds)

    def seconds_since_asked(self) -> float:
        return time.monotonic() - self.asked_at

    def _handle(self, signum, frame):
        if stopping:  # a second signal, or the grace is over
            if self.in_hand:
                raise Abandoned(self.in_hand)
            return
        stopping.reason = signal.Signals(signum).name
        self.asked_at = time.monotonic()
        # the job in hand when the signal came: by the time the stop's thread logs, the
        # main thread may already have finished it
        self.in_hand_when_asked = self.in_hand
        self._wake()

    def _wake(self) -> None:
        with contextlib.suppress(BlockingIOError):  # a full pipe wakes its readers already
            os.write(self.wake_write, b"!")

    def _watch(self) -> None:
        select.select([self.wake_read], [], [])
        if not stopping:
            return  # the run ended without a signal
        if self.in_hand_when_asked:
            log.info(
                "stopping on %s: the job %s in hand has %g s to finish",
                stopping.reason,
                self.in_hand_when_asked,
                self.grace,
                extra={"signal": stopping.reason, "job": self.in_hand_when_asked},
            )
        else:
            log.info("stopping on %s", stopping.reason, extra={"signal": stopping.reason})
        if not self.finished.wait(self.grace):  # the job in hand is abandoned
            signal.pthread_kill(threading.main_thread().ident, signal.SIGTERM)


class Command(BaseCommand):
    help = (
        "Run the deadline, reminder, digest and email jobs, the computer opponents' "
        "turns and the analysis of finished games (in a loop, or once for cron). "
        "SIGTERM or SIGINT stops it after the item in hand."
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
        parser.add_argument(
            "--grace",
            type=float,
            default=STOP_GRACE_SECONDS,
            help="seconds the job in hand may go on after SIGTERM or SIGINT (default %(default)s)",
        )

    def handle(self, *args, once=False, job=None, interval=WORKER_INTERVAL_SECONDS, **options):
        names = job or list(JOBS)
        heartbeat = options.get("name") or worker_name()
        self.bots, self.bots_halt, self.bots_ended = None, threading.Event(), threading.Event()
        self.quiet = not once  # the loop writes only the rounds that did something
        self.said_at, self.idle_rounds = time.monotonic(), 0
        with Stop(options.get("grace", STOP_GRACE_SECONDS)) as self.stop:
            if not once:
                log.info(
                    "worker %s (pid %s) running %s every %g s",
                    heartbeat,
                    os.getpid(),
                    ", ".join(names),
                    interval,
                    extra={"worker": heartbeat, "jobs": names},
                )
            try:
                try:
                    self._catch_up()
                    self._loop(names, heartbeat, once, interval)
                finally:
                    self._join_bots()
            except Abandoned as abandoned:
                log.warning(
                    "abandoned the job %s in hand %.1f s after %s: its open transaction "
                    "is rolled back, the next run does its work",
                    abandoned,
                    self.stop.seconds_since_asked(),
                    stopping.reason,
                    extra={"job": str(abandoned), "result": "abandoned"},
                )
        if self.stop.signal:
            seconds = self.stop.seconds_since_asked()
            log.info(
                "stopped %.1f s after %s",
                seconds,
                self.stop.signal,
                extra={"signal": self.stop.signal, "duration_ms": round(seconds * 1000)},
            )
        if self.bots is not None and not self.bots_ended.is_set():
            # The bots' turn was abandoned and still runs on its thread: the process
            # ends now, rather than in the interpreter's teardown beside that thread.
            # Its connection closes with it, and PostgreSQL rolls the turn back.
            logging.shutdown()
            os._exit(0)

    def _catch_up(self):
        """What the previous release left undone while an upgrade switched over
        (``games.services.upgrades``): once, as the worker starts."""
        started = time.monotonic()
        try:
            result = upgrades.catch_up()
        except Exception:  # the jobs still run; the next start tries again
            log.exception("catch_up: failed", extra={"job": "catch_up", "result": "failed"})
            return
        duration_ms = milliseconds_since(started)
        log.info(
            "catch_up: %s in %d ms",
            result,
            duration_ms,
            extra={"job": "catch_up", "result": result, "duration_ms": duration_ms},
        )

    def _loop(self, names, heartbeat, once, interval):
        if not once and "bots" in names:
            # The bots' turns on a thread of their own, the rest in this loop.
            names = [name for name in names if name != "bots"]
            self.bots = threading.Thread(target=self._bot_loop, name="worker-bots", daemon=True)
        fast = [name for name in names if name in FAST_JOBS]  # pushes, analysis
        slow = [name for name in names if name not in FAST_JOBS]
        if not once:
            metrics.serve_worker_metrics()  # with WORKER_METRICS_PORT: the jobs' durations
        if self.bots:
            self.bots.start()
        while not stopping:
            # A connection broken by a database outage is dropped here and opened anew
            # by the next query, so the loop recovers once the database is back.
            close_old_connections()
            if not slow:
                self._beat(heartbeat)
            for name in slow:
                if stopping:
                    return
                # Before each job, not once a loop: a long job (many emails) then does
                # not make a working worker look stale.
                self._beat(heartbeat)
                self._run(name)
            self._run_each(fast)
            if once:
                return
            self._say_idle(heartbeat, interval)
            if not fast:
                self.stop.sleep(interval)
                continue
            # Until the next round of the slow jobs, the fast ones run at their own pace.
            tick = min(fast_tick(name) for name in fast)
            end = time.monotonic() + interval
            while not stopping and (left := end - time.monotonic()) > 0:
                self.stop.sleep(min(tick, left))
                close_old_connections()
                self._run_each(fast, quiet=True)

    def _bot_loop(self):
        """The computer opponents' turns, every tick until the worker stops: a thread
        with its own database connection, closed when the loop ends.

        A turn in hand is finished (it takes a fraction of a second): a stop asked
        during it waits for it (``_join_bots``).
        """
        try:
            while not stopping and not self.bots_halt.is_set():
                close_old_connections()
                self._run("bots", quiet=True, in_hand=False)
                self.stop.sleep(bot_turns.tick_seconds())
        finally:
            connections.close_all()  # this thread's connections only
            self.bots_ended.set()

    def _join_bots(self) -> None:
        """Wait for the bots' loop to end (a stop ends it after the turn in hand).

        While it finishes its turn, the bots are the job in hand: a turn still running
        when the grace is over, or at a second signal, is abandoned as any job is (its
        transaction is rolled back with the connection as the process exits, and the
        next worker plays that turn).
        """
        # Also when the main loop ended otherwise than by a stop (it raised), and so
        # that a turn abandoned is the last: the stop's flag is cleared on the way out.
        self.bots_halt.set()
        if self.bots is None:
            return
        self.stop.in_hand = "bots"
        try:
            # Not Thread.join: a signal handler's exception that interrupts it can leave
            # the thread marked as ended while it runs on.
            while not self.bots_ended.wait(timeout=0.1):
                # The grace's signal went to a job of the main loop, abandoned already:
                # the turn in hand is not waited for longer than the grace either.
                if stopping and self.stop.seconds_since_asked() > self.stop.grace + 1:
                    raise Abandoned("bots")
        finally:
            self.stop.in_hand = ""

    def _run_each(self, names, quiet=None):
        for name in names:
            if stopping:
                return
            self._run(name, quiet)

    def _say_idle(self, heartbeat, interval):
        """After a round of the loop: a line if nothing was said for ``IDLE_LINE_SECONDS``."""
        self.idle_rounds += 1
        since = time.monotonic() - self.said_at
        if since >= IDLE_LINE_SECONDS:
            log.info(
                "worker %s running: nothing to do in %d rounds (%d min)",
                heartbeat,
                self.idle_rounds,
                round(since / 60),
                extra={"worker": heartbeat, "rounds": self.idle_rounds, "interval": interval},
            )
            self.said_at, self.idle_rounds = time.monotonic(), 0

    def _run(self, name, quiet=None, in_hand=True):
        """Run the job ``name`` and log its line, unless ``quiet`` (default: in the loop)
        and it did nothing; ``in_hand``: it is the main loop's job in hand (the one a
        stop waits for, and abandons after the grace)."""
        if quiet is None:
            quiet = self.quiet
        started = time.monotonic()
        if in_hand:
            self.stop.in_hand = name
        try:
            with metrics.job_run(name):  # timed; a failure counted and reported
                result = JOBS[name]()
        except Exception:  # one failing job must not stop the others
            duration_ms = milliseconds_since(started)
            log.exception(
                "%s: failed after %d ms",
                name,
                duration_ms,
                extra={"job": name, "result": "failed", "duration_ms": duration_ms},
            )
            return
        finally:
            if in_hand:
                self.stop.in_hand = ""
        duration_ms = milliseconds_since(started)
        # A round that found nothing to do says so only at DEBUG (DJANGO_LOG_LEVEL=DEBUG).
        said = worked(result) or not quiet
        if said:
            self.said_at, self.idle_rounds = time.monotonic(), 0
        log.log(
            logging.INFO if said else logging.DEBUG,
            "%s: %s in %d ms",
            name,
            result,
            duration_ms,
            extra={"job": name, "result": result, "duration_ms": duration_ms},
        )

    def _beat(self, name):
        try:
            beat(name)
        except Exception:  # no beat this time (database down?): the jobs still run
            log.exception("heartbeat %s failed", name, extra={"worker": name})


def milliseconds_since(started: float) -> int:
    return round((time.monotonic() - started) * 1000)
