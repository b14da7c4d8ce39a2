"""The worker's heartbeat, the worker_health check, and the loop riding out an outage."""

import datetime as dt
import io
import logging
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import time_machine
import yaml
from django.core.management import call_command
from django.db import OperationalError
from django.utils import timezone

from games import jobs
from games.management.commands import run_worker
from games.models import WorkerHeartbeat
from tests.helpers.databases import database_url

ROOT = Path(__file__).resolve().parents[2]
T0 = dt.datetime(2026, 3, 2, 12, 0, tzinfo=dt.UTC)


@pytest.fixture(autouse=True)
def keep_the_test_connection(monkeypatch):
    # The loop drops old connections; the test's one holds its transaction (the test
    # client likewise keeps requests from closing it).
    monkeypatch.setattr(run_worker, "close_old_connections", lambda: None)


def job_lines(caplog) -> list[tuple[int, str, object]]:
    """(level, job, result) of each job's log line of the worker."""
    return [
        (r.levelno, r.job, r.result)
        for r in caplog.records
        if r.name == "games.worker" and hasattr(r, "job")
    ]


def stop_on_the_sleep_number(n: int, sleeps: list, then=None):
    """A worker's sleep that counts the sleeps and signals SIGTERM to this process (the
    worker's own handler takes it) on the ``n``-th; ``then(seconds)`` on each one."""

    def sleep(stop, seconds):
        sleeps.append(seconds)
        if then:
            then(seconds)
        if len(sleeps) == n:
            os.kill(os.getpid(), signal.SIGTERM)

    return sleep


def health(*args):
    """(exit status, stdout, stderr) of worker_health."""
    out, err = io.StringIO(), io.StringIO()
    try:
        call_command("worker_health", *args, stdout=out, stderr=err)
    except SystemExit as exit:
        return exit.code, out.getvalue(), err.getvalue()
    return 0, out.getvalue(), err.getvalue()


@pytest.mark.django_db
def test_run_worker_once_writes_a_heartbeat(caplog):
    assert jobs.worker_heartbeat_age() is None
    caplog.set_level(logging.INFO, "games.worker")
    call_command("run_worker", "--once")
    assert (logging.INFO, "notifications", 0) in job_lines(caplog)
    beat = WorkerHeartbeat.objects.get()
    assert (beat.name, beat.host, beat.pid) == (
        socket.gethostname(),
        socket.gethostname(),
        os.getpid(),
    )
    assert 0 <= jobs.worker_heartbeat_age() < 60


@pytest.mark.django_db
def test_each_loop_beats_again_under_its_name(monkeypatch):
    loops = []

    def travel(seconds):
        if len(loops) < 2:
            traveller.shift(dt.timedelta(seconds=seconds))

    monkeypatch.setattr(run_worker.Stop, "sleep", stop_on_the_sleep_number(2, loops, travel))
    with time_machine.travel(T0, tick=False) as traveller:
        call_command("run_worker", "--job", "digests", "--name", "w1")
    assert loops == [jobs.WORKER_INTERVAL_SECONDS] * 2
    assert WorkerHeartbeat.objects.get(name="w1").beat_at == T0 + dt.timedelta(seconds=60)
    assert not jobs.stopping  # the stop ended with the run: jobs called later work


@pytest.mark.django_db
def test_the_age_is_that_of_the_newest_beat():
    jobs.beat("old", now=T0 - dt.timedelta(hours=5))
    jobs.beat("new", now=T0 - dt.timedelta(seconds=30))
    assert jobs.worker_heartbeat_age(T0) == 30.0
    assert jobs.worker_heartbeat_age(T0 - dt.timedelta(seconds=40)) == 0.0  # clocks differ
    jobs.beat("old", now=T0)  # an upsert: still two rows
    assert WorkerHeartbeat.objects.count() == 2 and jobs.worker_heartbeat_age(T0) == 0.0


@pytest.mark.django_db
def test_worker_health_exits_0_when_fresh_and_1_when_stale_or_missing():
    code, _, err = health()
    assert code == 1 and err.strip() == "worker down: no heartbeat recorded yet"

    now = timezone.now()
    jobs.beat("w", now=now - dt.timedelta(seconds=jobs.WORKER_STALE_SECONDS - 20))
    code, out, _ = health()
    assert code == 0 and out.startswith("worker ok: last beat")

    jobs.beat("w", now=now - dt.timedelta(seconds=jobs.WORKER_STALE_SECONDS + 20))
    code, _, err = health()
    assert code == 1 and err.startswith("worker down: last beat") and err.count("\n") == 1
    assert health("--max-age", str(jobs.WORKER_STALE_SECONDS + 60))[0] == 0


@pytest.mark.django_db(transaction=True)
def test_worker_health_exit_status_as_the_healthcheck_sees_it():
    env = {**os.environ, "DATABASE_URL": database_url(), "DJANGO_DEBUG": "1"}

    def status():
        command = [sys.executable, "manage.py", "worker_health"]
        return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, timeout=60)

    missing = status()
    assert missing.returncode == 1, missing.stderr
    assert b"no heartbeat" in missing.stderr
    jobs.beat("w")
    fresh = status()
    assert fresh.returncode == 0, fresh.stderr


@pytest.mark.django_db
def test_the_loop_rides_out_a_database_outage(monkeypatch, caplog):
    down = {"on": True}

    def beat(name):
        if down["on"]:
            raise OperationalError("server closed the connection unexpectedly")
        jobs.beat(name)

    def job():
        if down["on"]:
            raise OperationalError("server closed the connection unexpectedly")
        return "done"

    def back(seconds):
        down["on"] = False  # the database is back for the next loop

    sleeps = []  # two loops are enough
    monkeypatch.setattr(run_worker, "beat", beat)
    monkeypatch.setattr(run_worker.Stop, "sleep", stop_on_the_sleep_number(2, sleeps, back))
    monkeypatch.setitem(jobs.JOBS, "probe", job)
    caplog.set_level(logging.INFO, "games.worker")
    call_command("run_worker", "--job", "probe", "--name", "w")
    failures = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert [r.getMessage() for r in failures][0] == "heartbeat w failed"
    assert all(r.exc_info and r.exc_info[0] is OperationalError for r in failures)
    assert [line for line in job_lines(caplog) if line[1] == "probe"] == [
        (logging.ERROR, "probe", "failed"),
        (logging.INFO, "probe", "done"),
    ]
    assert WorkerHeartbeat.objects.filter(name="w").exists()


@pytest.mark.django_db
def test_the_loop_writes_only_the_rounds_that_did_something(monkeypatch, caplog):
    found = iter([0, {"timeouts": 0, "reminders": 0}, 2, {"timeouts": 1, "reminders": 0}, 0])

    def job():
        return next(found)

    sleeps = []
    monkeypatch.setattr(run_worker.Stop, "sleep", stop_on_the_sleep_number(5, sleeps))
    monkeypatch.setitem(jobs.JOBS, "probe", job)
    caplog.set_level(logging.INFO, "games.worker")
    call_command("run_worker", "--job", "probe", "--name", "w")
    assert len(sleeps) == 5  # five rounds
    assert [line for line in job_lines(caplog) if line[1] == "probe"] == [
        (logging.INFO, "probe", 2),
        (logging.INFO, "probe", {"timeouts": 1, "reminders": 0}),
    ]
    messages = [r.getMessage() for r in caplog.records if r.name == "games.worker"]
    assert any(m.startswith("worker w (pid ") for m in messages)  # the one line at start
    assert not any("nothing to do" in m for m in messages)  # not within IDLE_LINE_SECONDS


@pytest.mark.django_db
def test_an_idle_loop_says_it_runs_at_most_every_few_minutes(monkeypatch, caplog):
    clock = {"now": 1000.0}
    monkeypatch.setattr(run_worker.time, "monotonic", lambda: clock["now"])

    def later(seconds):
        clock["now"] += 60  # each round a minute later

    sleeps = []
    monkeypatch.setattr(run_worker.Stop, "sleep", stop_on_the_sleep_number(25, sleeps, later))
    monkeypatch.setitem(jobs.JOBS, "probe", lambda: 0)
    caplog.set_level(logging.INFO, "games.worker")
    call_command("run_worker", "--job", "probe", "--name", "w")
    idle = [r.getMessage() for r in caplog.records if "nothing to do" in r.getMessage()]
    # 25 rounds a minute apart: a line after 10 minutes (rounds 0 to 10), one 10 later
    assert idle == [
        "worker w running: nothing to do in 11 rounds (10 min)",
        "worker w running: nothing to do in 10 rounds (10 min)",
    ]
    assert not [line for line in job_lines(caplog) if line[1] == "probe"]


@pytest.mark.parametrize(
    ("result", "did"),
    [(0, False), (3, True), ({"a": 0, "b": 0}, False), ({"a": 0, "b": 1}, True), ("", False)]
    + [(None, False), ("done", True), (False, False)],
)
def test_what_counts_as_work(result, did):
    assert run_worker.worked(result) is did


def test_the_compose_worker_is_healthy_by_its_heartbeat():
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    test = compose["services"]["worker"]["healthcheck"]["test"]
    assert test == ["CMD", "python", "manage.py", "worker_health"]
