"""The worker stops cleanly on SIGTERM and SIGINT, idle or busy, also as PID 1: real
``manage.py run_worker`` processes on the test database (an SQLite file, or PostgreSQL)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from games.models import Game, Notification
from tests.helpers.accounts import confirmed_address
from tests.helpers.databases import database_url
from tests.helpers.slow_mail import noted

ROOT = Path(__file__).resolve().parents[2]
STOP_LIMIT = 5.0  # seconds from the signal to the exit, as a container's stop needs

pytestmark = pytest.mark.django_db(transaction=True)


class Worker:
    """A ``run_worker`` process started by a test, its output in a file."""

    def __init__(self, tmp_path: Path, *args: str, wrapper=(), settings=None, **env: str):
        self.log = tmp_path / "worker.log"
        environment = {
            **os.environ,
            "DATABASE_URL": database_url(),
            "PYTHONUNBUFFERED": "1",
            **env,
        }
        if settings:
            environment["DJANGO_SETTINGS_MODULE"] = settings
        with self.log.open("wb") as out:
            self.process = subprocess.Popen(
                [*wrapper, sys.executable, "manage.py", "run_worker", *args],
                cwd=ROOT,
                env=environment,
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
            )
        self.pid = self.process.pid  # the process to signal

    def said(self) -> str:
        return self.log.read_text(errors="replace")

    def wait_for(self, check, timeout: float = 60.0):
        """Until ``check()`` is true (the worker started, an email went out …)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if value := check():
                return value
            if self.process.poll() is not None:
                ended = self.process.returncode
                raise AssertionError(f"the worker ended ({ended}):\n{self.said()}")
            time.sleep(0.05)
        raise AssertionError(f"still not {check.__doc__ or check}:\n{self.said()}")

    def started(self) -> bool:
        """started"""
        return " running " in self.said()

    def stop(self, signum: int = signal.SIGTERM) -> tuple[int, float]:
        """Send ``signum``: (exit status, seconds until the exit)."""
        sent = time.monotonic()
        os.kill(self.pid, signum)
        return self.exit_status(), time.monotonic() - sent

    def exit_status(self) -> int:
        try:
            return self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.kill()
            raise AssertionError(f"the worker did not stop:\n{self.said()}") from None

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


@pytest.fixture
def workers():
    started = []

    def start(*args, **kwargs) -> Worker:
        worker = Worker(*args, **kwargs)
        started.append(worker)
        return worker

    yield start
    for worker in started:  # a failed test leaves no process behind
        worker.kill()


def pending_emails(game: Game, count: int) -> list[str]:
    """``count`` players with confirmed addresses, each with a timeout email waiting."""
    from django.contrib.auth import get_user_model

    addresses = []
    for i in range(count):
        user = get_user_model().objects.create_user(f"player{i}", password="x")
        confirmed_address(user)
        Notification.objects.create(user=user, game=game, kind="timeout", key=str(game.pk))
        addresses.append(user.email)
    return addresses


def outbox() -> tuple[list[str], list[str]]:
    """(addresses of the rows marked sent, of the rows still pending); no other row."""
    rows = Notification.objects.select_related("user").order_by("id")
    marked = [n.user.email for n in rows if n.sent_at is not None]
    assert all(n.outcome == "sent" and n.attempts == 1 for n in rows if n.sent_at is not None)
    pending = [n.user.email for n in rows if n.sent_at is None]
    assert all(n.outcome == "" and n.attempts == 0 for n in rows if n.sent_at is None)
    return marked, pending


def stop_lines(said: str, name: str) -> list[str]:
    return [line for line in said.splitlines() if f" on {name}" in line or f" after {name}" in line]


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_an_idle_worker_stops_at_once_with_exit_status_0(workers, tmp_path, signum):
    worker = workers(tmp_path, "--job", "digests", "--interval", "600")
    worker.wait_for(worker.started)
    worker.wait_for(lambda: "catch_up:" in worker.said())  # the loop begins
    time.sleep(1)  # its round, which found nothing (and says nothing): it sleeps 10 minutes
    assert "digests:" not in worker.said()
    status, seconds = worker.stop(signum)
    assert status == 0, worker.said()
    assert seconds < STOP_LIMIT
    name = signal.Signals(signum).name
    stopping, stopped = stop_lines(worker.said(), name)
    assert f"stopping on {name}" in stopping and "stopped " in stopped


def sending_worker(workers, tmp_path, seconds_an_email: float):
    """A worker that only sends the outbox, through a mail server this slow; the server's
    log of each email begun and sent."""
    mail_log = tmp_path / "mail.log"
    worker = workers(
        tmp_path,
        "--job",
        "notifications",
        settings="tests.helpers.worker_settings",
        SLOW_MAIL_LOG=str(mail_log),
        SLOW_MAIL_SECONDS=str(seconds_an_email),
    )
    return worker, mail_log


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_stop_during_a_long_send_ends_between_two_emails(workers, tmp_path, game, signum):
    addresses = pending_emails(game, 40)  # 8 s of sending at 0.2 s an email
    worker, mail_log = sending_worker(workers, tmp_path, seconds_an_email=0.2)
    worker.wait_for(lambda: len(noted(mail_log, "sent")) >= 3)
    status, seconds = worker.stop(signum)
    assert status == 0, worker.said()
    assert seconds < STOP_LIMIT
    marked, pending = outbox()
    sent = noted(mail_log, "sent")
    # The email in hand was finished and marked: every email sent is marked, every one
    # marked was sent, once; the others wait for the next run.
    assert sorted(marked) == sorted(sent) and len(set(sent)) == len(sent)
    assert noted(mail_log, "begin") == sent
    assert pending and sorted(marked + pending) == sorted(addresses)
    name = signal.Signals(signum).name
    assert f"notifications: {len(sent)} in " in worker.said()
    assert "abandoned" not in worker.said()
    stopping, stopped = stop_lines(worker.said(), name)
    assert "the job notifications in hand" in stopping and "stopped " in stopped


def test_an_email_stuck_past_the_grace_is_abandoned_and_stays_pending(workers, tmp_path, game):
    addresses = pending_emails(game, 3)
    # a mail server that never answers
    worker, mail_log = sending_worker(workers, tmp_path, seconds_an_email=600)
    worker.wait_for(lambda: noted(mail_log, "begin"))
    status, seconds = worker.stop()
    assert status == 0, worker.said()
    assert seconds < STOP_LIMIT
    assert "abandoned the job notifications in hand" in worker.said()
    assert noted(mail_log, "sent") == []
    assert outbox() == ([], addresses)  # rolled back: the next run sends it


def test_a_second_signal_abandons_the_job_in_hand_at_once(workers, tmp_path, game):
    addresses = pending_emails(game, 2)
    mail_log = tmp_path / "mail.log"
    worker = workers(
        tmp_path,
        "--job",
        "notifications",
        "--grace",
        "600",  # the first signal alone would wait for the email ten minutes
        settings="tests.helpers.worker_settings",
        SLOW_MAIL_LOG=str(mail_log),
        SLOW_MAIL_SECONDS="600",
    )
    worker.wait_for(lambda: noted(mail_log, "begin"))
    os.kill(worker.pid, signal.SIGTERM)
    worker.wait_for(lambda: "stopping on SIGTERM" in worker.said())
    status, seconds = worker.stop(signal.SIGINT)
    assert status == 0, worker.said()
    assert seconds < STOP_LIMIT
    assert "abandoned the job notifications in hand" in worker.said()
    assert outbox() == ([], addresses)


def test_as_pid_1_of_a_container_sigterm_stops_the_worker(workers, tmp_path):
    """PID 1 ignores a signal it has no handler for: the worker's own handler stops it."""
    wrapper = ("unshare", "--pid", "--fork", "--mount-proc")
    try:
        probe = subprocess.run([*wrapper, "true"], capture_output=True, timeout=30)
    except FileNotFoundError:
        pytest.skip("no unshare(1) here (util-linux) to start a process as PID 1")
    if probe.returncode != 0:
        pytest.skip(f"cannot make a PID namespace here (needs root): {probe.stderr.decode()}")
    worker = workers(tmp_path, "--job", "digests", "--interval", "600", wrapper=wrapper)
    worker.wait_for(worker.started)
    assert "(pid 1)" in worker.said()
    # unshare waits for its child, PID 1 inside, and exits with its status.
    (child,) = Path(f"/proc/{worker.pid}/task/{worker.pid}/children").read_text().split()
    worker.pid = int(child)
    status_lines = Path(f"/proc/{child}/status").read_text().splitlines()
    (ns_pids,) = [line.split()[1:] for line in status_lines if line.startswith("NSpid:")]
    assert ns_pids == [child, "1"]  # its PID here, and 1 in its namespace
    status, seconds = worker.stop(signal.SIGTERM)
    assert status == 0, worker.said()
    assert seconds < STOP_LIMIT
    assert "stopped " in worker.said()


def test_under_json_logging_every_line_is_a_json_object(workers, tmp_path):
    worker = workers(tmp_path, "--once", DJANGO_LOG_FORMAT="json")
    assert worker.exit_status() == 0, worker.said()
    lines = worker.said().splitlines()
    records = [json.loads(line) for line in lines]  # fails on any line that is not JSON
    jobs = {r["job"]: r for r in records if "job" in r}
    assert sorted(jobs) == sorted(
        [
            "catch_up",
            "deadlines",
            "digests",
            "notifications",
            "pushes",
            "bots",
            "analysis",
            "guests",
            "tournaments",
        ]
    )
    assert all(r["name"] == "games.worker" for r in jobs.values())
    assert all(isinstance(r["duration_ms"], int) and r["duration_ms"] >= 0 for r in jobs.values())
    assert jobs["deadlines"]["result"] == {"timeouts": 0, "reminders": 0}
    assert jobs["notifications"]["result"] == 0
    assert jobs["catch_up"]["result"] == {"ended": 0, "filled": 0, "unlisted": 0, "scheduled": 0}
    assert len(records) == len(jobs)  # --once: the job lines, and nothing else


def test_under_json_logging_the_start_and_stop_lines_are_json_too(workers, tmp_path):
    worker = workers(tmp_path, "--job", "digests", "--name", "w1", DJANGO_LOG_FORMAT="json")
    worker.wait_for(lambda: '"job": "catch_up"' in worker.said())
    time.sleep(1)  # a round of the loop, which found nothing to do: no line
    status, _ = worker.stop(signal.SIGTERM)
    assert status == 0, worker.said()
    records = [json.loads(line) for line in worker.said().splitlines()]
    assert [r["message"].split()[0] for r in records] == [
        "worker",
        "catch_up:",
        "stopping",
        "stopped",
    ]
    assert records[0]["worker"] == "w1" and records[0]["jobs"] == ["digests"]
    assert records[2]["signal"] == records[3]["signal"] == "SIGTERM"
