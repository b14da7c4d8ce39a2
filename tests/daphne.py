"""Start real Daphne processes: for tests that need a server, and for bench/load.py.

Only the standard library here, so that the benchmark imports it without pytest or Django.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Servers:
    """Daphne processes that serve: their URLs and processes. Leaving a ``with`` block
    (or ``stop()``) stops each one."""

    def __init__(self, urls: list[str], processes: list[subprocess.Popen]):
        self.urls = urls
        self.processes = processes

    def __enter__(self) -> list[str]:
        return self.urls

    def __exit__(self, *exc) -> None:
        self.stop()

    def stop(self) -> None:
        for process in self.processes:
            process.terminate()
        for process in self.processes:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def start_server(
    app: str = "shanghaien.asgi:application",
    *,
    count: int = 1,
    env: Mapping[str, str] | None = None,
    log: Path | None = None,
    ready: str = "/healthz?skip=worker",
    port: int | None = None,
    timeout: float = 30,
) -> Servers:
    """``count`` Daphne processes serving ``app`` on 127.0.0.1, each once ``ready`` answers.

    ``env`` adds to or overrides this process's environment (e.g. ``DATABASE_URL``,
    ``REDIS_URL``); ``log`` is a file for the servers' output, kept for reading after a
    failure (without one, the output is kept only until the servers have started).
    ``port`` fixes the port of a single process; otherwise each gets a free one.
    If a process does not start, every process started is killed (a server left running
    would answer the next run in its place) and RuntimeError tells what it said.

        with start_server(env={"DATABASE_URL": url}) as (base_url,):
            ...
    """
    if port is not None and count != 1:
        raise ValueError("a fixed port is for one process only")
    environment = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "shanghaien.settings",
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
        **(env or {}),
    }
    if log is not None:
        log.parent.mkdir(parents=True, exist_ok=True)
    processes, urls = [], []
    # The servers write on copies of the file of their own: it may be closed here.
    with open(log, "w+b") if log is not None else tempfile.TemporaryFile() as sink:
        try:
            for _ in range(count):
                chosen = port or free_port()
                url = f"http://127.0.0.1:{chosen}"
                # the site's own origin is its address (a browser's sockets come from it),
                # unless the caller says otherwise
                own = {"SITE_URL": url} if "SITE_URL" not in (env or {}) else {}
                # --verbosity 0 as in production: no access lines of Daphne's own (the
                # site's access log writes them) and Twisted's log discarded
                command = [sys.executable, "-m", "daphne", "--verbosity", "0"]
                command += ["-b", "127.0.0.1", "-p", str(chosen)]
                processes.append(
                    subprocess.Popen(
                        [*command, app],
                        cwd=ROOT,
                        env={**environment, **own},
                        stdout=sink,
                        stderr=subprocess.STDOUT,
                    )
                )
                urls.append(url)
            deadline = time.monotonic() + timeout
            for url, process in zip(urls, processes, strict=True):
                if not _serves(url + ready, process, deadline):
                    _kill(processes)
                    sink.seek(0)
                    said = sink.read().decode(errors="replace")
                    where = f" (its output: {log})" if log else ""
                    raise RuntimeError(f"Daphne did not start{where}: {said[-2000:]}")
        except BaseException:
            _kill(processes)
            raise
    return Servers(urls, processes)


def _serves(url: str, process: subprocess.Popen, deadline: float) -> bool:
    """Whether ``url`` answers before the process exits or the deadline passes."""
    while True:
        try:
            urllib.request.urlopen(url, timeout=2).read()
            return True
        except OSError:  # refused, not yet 200, or no answer in time
            if process.poll() is not None or time.monotonic() > deadline:
                return False
            time.sleep(0.2)


def _kill(processes: list[subprocess.Popen]) -> None:
    for process in processes:
        if process.poll() is None:
            process.kill()
            process.wait()
