"""`make run` as a newcomer meets it: two players sign up and confirm their addresses
through the forms, one invites the other, they move, and the invitation and the turn
emails print in the same console, with nothing else started; Ctrl-C then stops the
server and the worker both."""

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import time
import uuid
from http.cookiejar import CookieJar
from pathlib import Path
from urllib.error import HTTPError, URLError
from urllib.parse import urlencode
from urllib.request import HTTPCookieProcessor, Request, build_opener

import pytest

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="needs make")

TOKEN = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Visitor:
    """A browser without a browser: cookies, forms with their CSRF token, the JSON API."""

    def __init__(self, base: str):
        self.base = base
        self.jar = CookieJar()
        self.opener = build_opener(HTTPCookieProcessor(self.jar))

    def open(self, path, data=None, headers=None) -> tuple[int, str]:
        request = Request(self.base + path, data=data, headers=headers or {})
        try:
            with self.opener.open(request, timeout=15) as response:
                return response.status, response.read().decode()
        except HTTPError as error:
            return error.code, error.read().decode()
        except URLError:  # not listening (yet)
            return 0, ""

    def submit(self, path: str, fields: dict, form_path: str | None = None) -> tuple[int, str]:
        """Fill in the form at ``form_path`` (``path``) and send it to ``path``."""
        status, page = self.open(form_path or path)
        assert status == 200, page
        token = TOKEN.findall(page)[-1]
        body = urlencode({"csrfmiddlewaretoken": token, **fields}).encode()
        return self.open(path, body, {"Content-Type": "application/x-www-form-urlencoded"})

    def api(self, path: str, data: dict) -> dict:
        csrf = next(c.value for c in self.jar if c.name == "csrftoken")
        headers = {"Content-Type": "application/json", "X-CSRFToken": csrf}
        status, body = self.open(path, json.dumps(data).encode(), headers)
        assert status in (200, 201), body
        return json.loads(body)


class Console:
    """What `make run` printed so far."""

    def __init__(self, path: Path):
        self.path = path

    def text(self) -> str:
        return self.path.read_text(errors="replace")

    def wait_for(self, pattern: str, after: int = 0, timeout: float = 30) -> re.Match:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = re.compile(pattern, re.S).search(self.text(), after)
            if found:
                return found
            time.sleep(0.2)
        raise AssertionError(f"{pattern!r} never printed; the console:\n{self.text()[-4000:]}")


def sign_up(base: str, console: Console, name: str) -> Visitor:
    visitor = Visitor(base)
    status, page = visitor.submit(
        "/accounts/signup/",
        {
            "username": name,
            "email": f"{name}@example.com",
            "password1": "a long tavern password",
            "password2": "a long tavern password",
            "time_zone": "Europe/Berlin",
        },
    )
    assert status == 200, page
    link = console.wait_for(rf"To: {name}@example\.com.*?(/accounts/confirm-email/[^/\s]+/)")
    status, page = visitor.submit(link.group(1), {})
    assert status == 200, page
    return visitor


@pytest.fixture
def make_run(tmp_path):
    port = free_port()
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "PYTHONUNBUFFERED": "1",
    }
    for name in ("REDIS_URL", "EMAIL_URL", "DJANGO_DEBUG", "MAKEFLAGS", "MFLAGS"):
        env.pop(name, None)  # what a fresh machine has: no Redis, console emails
    log = tmp_path / "console.txt"
    with log.open("wb") as out:
        process = subprocess.Popen(
            ["make", "--no-print-directory", "run", f"PORT={port}"],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,  # its own process group, as a terminal's job
        )
    base = f"http://127.0.0.1:{port}"
    console = Console(log)
    try:
        deadline = time.monotonic() + 120
        while Visitor(base).open("/healthz")[0] != 200:
            assert process.poll() is None, console.text()
            assert time.monotonic() < deadline, console.text()
            time.sleep(0.3)
        yield base, console, process
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


def test_make_run_prints_the_invitation_and_the_turn_emails(make_run):
    base, console, process = make_run
    anna = sign_up(base, console, "anna")
    bernd = sign_up(base, console, "bernd")
    start = len(console.text())
    invitation = anna.api("/api/invitations/", {"to": "bernd"})
    console.wait_for(
        r"Subject: anna invites you to a game of Shanghaien.*?To: bernd@example\.com"
        r"|To: bernd@example\.com.*?Subject: anna invites you to a game of Shanghaien",
        after=start,
    )
    game = bernd.api(f"/api/invitations/{invitation['id']}/accept/", {})["game"]
    players = {"anna": anna, "bernd": bernd}
    view = json.loads(anna.open(f"/api/games/{game}/")[1])
    first = "anna" if view["view"]["turn"] == "me" else "bernd"
    second = "bernd" if first == "anna" else "anna"
    turn = (
        r"Subject: Your turn against {other}.*?To: {to}@example\.com"
        r"|To: {to}@example\.com.*?Subject: Your turn against {other}"
    )
    console.wait_for(turn.format(other=second, to=first), after=start)
    # the first player rolls and places: now the other one is told
    mover = players[first]
    for command in (
        {"type": "roll"},
        {"type": "direction", "one_at": "left"},
        {"type": "place", "die": 0},
    ):
        current = json.loads(mover.open(f"/api/games/{game}/")[1])
        body = {
            "command": command,
            "expected_version": current["version"],
            "client_id": str(uuid.uuid4()),
        }
        mover.api(f"/api/games/{game}/commands/", body)
    console.wait_for(turn.format(other=first, to=second), after=start)
    # Ctrl-C: the terminal signals the whole job; the server and the worker both stop
    os.killpg(process.pid, signal.SIGINT)
    process.wait(timeout=20)
    deadline = time.monotonic() + 20
    while group_alive(process.pid):
        assert time.monotonic() < deadline, subprocess.run(
            ["ps", "-o", "pid,pgid,cmd", "-g", str(process.pid)], capture_output=True, text=True
        ).stdout
        time.sleep(0.2)
