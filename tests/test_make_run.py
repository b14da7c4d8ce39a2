"""`make run` as a newcomer meets it on a fresh checkout: it makes a virtualenv of its own
with only what serving needs, installed from the lock; two players sign up and confirm their
addresses through the forms, one invites the other, they move, and the invitation and the
turn emails print in the same console, every link in them to the port it serves, with
nothing else started; Ctrl-C then stops the server and the worker both, and so does a
SIGTERM to make alone."""

import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid
from http.cookiejar import CookieJar
from pathlib import Path
from urllib.error import HTTPError, URLError
from urllib.parse import urlencode, urlsplit
from urllib.request import HTTPCookieProcessor, Request, build_opener

import pytest

from tests.helpers.locks import ROOT, canonical, pins

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="needs make")

TOKEN = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')
# The first `make run` of the module installs the runtime lock into a new virtualenv: seconds
# from pip's cache, longer from the network.
FIRST_START_SECONDS = 300
TEST_TOOLS = ("pytest", "playwright", "ruff")

# A terminal's shell starts a job in a process group of its own, with SIGINT and SIGQUIT at
# their defaults and no signal blocked, whatever its own parent did. pytest itself may run
# with SIGINT ignored: a non-interactive shell (a CI script, `make test &`) starts background
# commands so, and an ignored signal stays ignored through fork and exec, into make, its
# shell, Daphne and the worker, where Ctrl-C would then stop nothing. This launcher puts
# them back as a terminal has them, then becomes the command.
AS_A_TERMINAL_STARTS_A_JOB = (
    "import os, signal, sys\n"
    "signal.pthread_sigmask(signal.SIG_SETMASK, ())\n"
    "signal.signal(signal.SIGINT, signal.SIG_DFL)\n"
    "signal.signal(signal.SIGQUIT, signal.SIG_DFL)\n"
    "os.execvp(sys.argv[1], sys.argv[1:])\n"
)


def terminal_job(command: list[str], **options) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", AS_A_TERMINAL_STARTS_A_JOB, *command],
        start_new_session=True,  # its own process group (and session), as a terminal's job
        **options,
    )


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
        except (URLError, ConnectionError):  # not listening (yet)
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
    # the framed summary above the email: its recipient, then the link to confirm first
    link = console.wait_for(
        rf"#### EMAIL #+\n## To: +{name}@example\.com\n## Subject: [^\n]+\n## Links:\n"
        r"##   https?://[^/\s]+(/accounts/confirm-email/[^/\s]+/)\n"
    )
    status, page = visitor.submit(link.group(1), {})
    assert status == 200, page
    return visitor


def group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


def wait_for_the_group_to_end(process: subprocess.Popen, console: "Console"):
    """make exits, and nothing it started (server, worker) outlives it."""
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        raise AssertionError(f"make still runs; the console:\n{console.text()[-4000:]}") from None
    deadline = time.monotonic() + 20
    while group_alive(process.pid):
        assert time.monotonic() < deadline, subprocess.run(
            ["ps", "-o", "pid,pgid,stat,cmd", "-g", str(process.pid)],
            capture_output=True,
            text=True,
        ).stdout
        time.sleep(0.2)


@pytest.fixture(scope="module")
def fresh_venv(tmp_path_factory):
    """Where `make run` makes its virtualenv: nothing there before the first run."""
    venv = tmp_path_factory.mktemp("checkout") / "venv"
    yield venv
    shutil.rmtree(venv, ignore_errors=True)  # some 200 MB


@pytest.fixture
def make_run(fresh_venv, tmp_path):
    port = free_port()
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "PYTHONUNBUFFERED": "1",
    }
    # what a fresh machine has: no Redis, console emails, no settings of an outer make
    for name in ("REDIS_URL", "EMAIL_URL", "DJANGO_DEBUG", "SITE_URL", "VIRTUAL_ENV"):
        env.pop(name, None)
    for name in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES", "MAKE_TERMOUT"):
        env.pop(name, None)
    log = tmp_path / "console.txt"
    with log.open("wb") as out:
        process = terminal_job(
            ["make", "--no-print-directory", "run", f"PORT={port}", f"VENV={fresh_venv}"],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
    base = f"http://127.0.0.1:{port}"
    console = Console(log)
    try:
        deadline = time.monotonic() + FIRST_START_SECONDS
        while Visitor(base).open("/healthz")[0] != 200:
            assert process.poll() is None, console.text()
            assert time.monotonic() < deadline, console.text()
            time.sleep(0.3)
        yield base, console, process
    finally:
        with contextlib.suppress(ProcessLookupError):  # anything left of the group
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def installed(venv: Path) -> dict[str, str]:
    """Every distribution in ``venv``, by canonical name, with its version."""
    code = (
        "import importlib.metadata, json\n"
        "print(json.dumps({d.metadata['Name']: d.version"
        " for d in importlib.metadata.distributions()}))"
    )
    listing = subprocess.run(
        [venv / "bin" / "python", "-c", code], capture_output=True, text=True, check=True
    )
    return {canonical(name): version for name, version in json.loads(listing.stdout).items()}


def test_make_run_installs_from_the_lock_what_serving_needs_and_no_test_tool(make_run, fresh_venv):
    locked = {**pins("runtime.txt"), **pins("build.txt")}
    present = installed(fresh_venv)
    # pip comes with the virtualenv; every other distribution is the lock's, at its version
    unlocked = {name: v for name, v in present.items() if locked.get(name) != v and name != "pip"}
    assert not unlocked, f"not in requirements/runtime.txt or build.txt: {unlocked}"
    for tool in TEST_TOOLS:
        assert tool in pins("test.txt")  # so that its absence here means something
        assert tool not in present
    for name in ("django", "daphne", "channels", "sentry-sdk", "prometheus-client"):
        assert present[name] == locked[name]
    check = subprocess.run(
        [fresh_venv / "bin" / "python", "-m", "pip", "check"], capture_output=True, text=True
    )
    assert check.returncode == 0, check.stdout + check.stderr  # nothing needed is missing


def test_make_run_prints_the_emails_with_links_to_its_port_and_stops_on_ctrl_c(make_run):
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
    # every link of every email, the worker's (SITE_URL) as well as the server's, is to the
    # port this `make run` serves, not to the default 8000
    links = re.findall(r"https?://[^\s\"'<>)]+", console.text())
    game_links = [link for link in links if urlsplit(link).path == f"/games/{game}/"]
    assert game_links, console.text()[-4000:]
    assert any("/unsubscribe/" in link for link in links), console.text()[-4000:]
    for link in links:
        assert link == base or link.startswith(base + "/"), f"{link} does not point at {base}"
    # Ctrl-C: the terminal signals the whole job; the server and the worker both stop
    os.killpg(process.pid, signal.SIGINT)
    wait_for_the_group_to_end(process, console)


def test_make_run_prints_no_line_for_a_worker_round_that_did_nothing(make_run):
    base, console, process = make_run
    # the worker's one line as it starts, then its rounds (every 3 s) in silence
    started = console.wait_for(r"worker \S+ \(pid \d+\) running [^\n]*every 3 s\n")
    time.sleep(10)  # three rounds, some thirty of the fast jobs
    after = console.text()[started.end() :]
    jobs = ("deadlines", "digests", "notifications", "pushes", "bots", "analysis")
    said = [
        line
        for line in after.splitlines()
        if re.search(rf"games\.worker ({'|'.join(jobs)}):", line)
    ]
    assert not said, after[-4000:]
    os.killpg(process.pid, signal.SIGINT)
    wait_for_the_group_to_end(process, console)


def test_a_sigterm_to_make_alone_stops_the_server_and_the_worker(make_run):
    base, console, process = make_run
    os.kill(process.pid, signal.SIGTERM)  # as a process manager or an IDE stops it
    wait_for_the_group_to_end(process, console)
    assert Visitor(base).open("/healthz")[0] == 0


def test_a_terminal_job_takes_ctrl_c_even_where_pytest_ignores_it():
    """The launcher above, under the condition it exists for: the parent ignores SIGINT."""
    code = "import signal; print(signal.getsignal(signal.SIGINT) is signal.default_int_handler)"
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        plain = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        job = terminal_job([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
        out, _ = job.communicate(timeout=60)
    finally:
        signal.signal(signal.SIGINT, previous)
    assert plain.stdout.strip() == "False"  # what a child started plainly would have had
    assert out.strip() == "True"
