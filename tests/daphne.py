"""Start real Daphne processes on the test database, for tests that need a server."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def daphne_servers(database_url: str, count: int = 1, log: Path | None = None, **env):
    """``count`` Daphne processes serving the site on ``database_url``; yields their URLs.

    ``env`` adds to or overrides the environment (e.g. ``REDIS_URL``); ``log`` is a file
    for the servers' output (kept for reading after a failure). Each process is stopped
    when the block ends.
    """
    environment = {
        **os.environ,
        "DATABASE_URL": database_url,
        "DJANGO_SETTINGS_MODULE": "shanghaien.settings",
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
        **env,
    }
    procs, urls = [], []
    with contextlib.ExitStack() as files:
        out = files.enter_context(open(log, "wb")) if log else None
        try:
            for _ in range(count):
                port = free_port()
                command = [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port)]
                procs.append(
                    subprocess.Popen(
                        [*command, "shanghaien.asgi:application"],
                        cwd=ROOT,
                        env=environment,
                        stdout=out or subprocess.DEVNULL,
                        stderr=subprocess.STDOUT if out else subprocess.PIPE,
                    )
                )
                urls.append(f"http://127.0.0.1:{port}")
            for url, proc in zip(urls, procs, strict=True):
                _wait_until_serving(url, proc, log)
            yield urls
        finally:
            _stop(procs)


def _wait_until_serving(url: str, proc: subprocess.Popen, log: Path | None) -> None:
    deadline = time.monotonic() + 30
    while True:
        try:
            urllib.request.urlopen(url + "/", timeout=2).read()
            return
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                said = log.read_text() if log else proc.stderr.read().decode()
                raise RuntimeError(f"Daphne did not start: {said[-2000:]}") from None
            time.sleep(0.2)


def _stop(procs: list[subprocess.Popen]) -> None:
    for proc in procs:
        proc.terminate()
    for proc in procs:
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
