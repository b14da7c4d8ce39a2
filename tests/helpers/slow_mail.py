"""An email backend as slow as a distant mail server, for the worker's stop tests.

Each message takes ``SLOW_MAIL_SECONDS`` (environment) and is noted in the file
``SLOW_MAIL_LOG`` twice, one line each: ``begin <address>`` when its sending starts and
``sent <address>`` once it is sent, so a test tells what was sent, and what only begun.
"""

import os
import time
from pathlib import Path

from django.core.mail.backends.base import BaseEmailBackend


def note(what: str, address: str) -> None:
    with Path(os.environ["SLOW_MAIL_LOG"]).open("a") as log:
        log.write(f"{what} {address}\n")
        log.flush()
        os.fsync(log.fileno())


class SlowBackend(BaseEmailBackend):
    def send_messages(self, messages):
        for message in messages:
            (address,) = message.to
            note("begin", address)
            time.sleep(float(os.environ.get("SLOW_MAIL_SECONDS", "0.2")))
            note("sent", address)
        return len(messages)


def noted(path: Path, what: str) -> list[str]:
    """The addresses noted as ``what`` ("begin" or "sent") in the log at ``path``."""
    if not path.exists():
        return []
    lines = path.read_text().splitlines()
    return [line.split(" ", 1)[1] for line in lines if line.startswith(f"{what} ")]
