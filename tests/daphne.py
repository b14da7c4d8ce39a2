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
def daphne_servers(database_url: str, count: int = 1, **env):
    """``count`` Daphne processes serving the site on ``database_url``; yields their URLs.

    ``env`` adds to or overrides the environment (e.g. ``REDIS_URL``); each process is
    stopped when the block ends.
    """
    environment = {
        **os.environ,
        "DATABASE_URL": database_url,
        "DJANGO_SETTINGS_MODULE": "shanghaien.settings",
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
        **env,
    }
    procs, urls = [], []
    try:
        for _ in range(count):
            port = free_port()
            command = [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port)]
            procs.append(
                subprocess.Popen(
                    [*command, "shanghaien.asgi:application"],
                    cwd=ROOT,
                    env=environment,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.PIPE,
                )
            )
            urls.append(f"http://127.0.0.1:{port}")
        for url, proc in zip(urls, procs, strict=True):
            deadline = time.monotonic() + 30
            while True:
                try:
                    urllib.request.urlopen(url + "/", timeout=2).read()
                    break
                except OSError:
                    if proc.poll() is not None or time.monotonic() > deadline:
                        raise RuntimeError(proc.stderr.read().decode()[-2000:]) from None
                    time.sleep(0.2)
        yield urls
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
