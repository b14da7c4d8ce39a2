"""Browser tests: Playwright driving the machine's Chromium (never a downloaded browser)."""

import os
import shutil
from pathlib import Path

import pytest

from ..daphne import start_server
from ..helpers.databases import database_url as test_database_url
from ..helpers.databases import wait_for_server_sessions_to_end
from .helpers import Mailbox, register_mailbox

# Playwright's sync API runs an event loop in this thread; Django's ORM calls from the
# live server fixtures are still synchronous and safe here.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

SCREENSHOTS = Path(__file__).parent / "screenshots"
LAUNCH_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]


def chromium_path() -> str | None:
    for candidate in (os.environ.get("CHROMIUM_PATH"), "/usr/bin/chromium"):
        if candidate and Path(candidate).is_file():
            return candidate
    return shutil.which("chromium")


@pytest.fixture(scope="session")
def browser():
    path = chromium_path()
    if path is None:
        message = "Chromium not found at /usr/bin/chromium (apt-get install chromium)"
        if os.environ.get("CI"):
            pytest.fail(f"{message}: browser tests must run in CI")
        pytest.skip(f"{message} — browser tests skipped")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=path, headless=True, args=LAUNCH_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    yield page
    context.close()


@pytest.fixture
def screenshot():
    SCREENSHOTS.mkdir(exist_ok=True)

    def take(page, name: str) -> Path:
        path = SCREENSHOTS / f"{name}.png"
        page.screenshot(path=str(path), full_page=True)
        return path

    return take


@pytest.fixture(scope="session")
def mailbox(tmp_path_factory) -> Mailbox:
    """The emails the asgi_server writes (confirmation links and the like), to read back."""
    return Mailbox(tmp_path_factory.mktemp("mailbox"))


@pytest.fixture(scope="session")
def asgi_server(django_db_setup, django_db_blocker, mailbox):
    """Daphne serving the site (HTTP and websockets) on the test database; its emails
    go to ``mailbox`` (also reachable as helpers.mailbox_of(url))."""
    with django_db_blocker.unblock():
        database_url = test_database_url()
    log = SCREENSHOTS.parent / "daphne.log"
    env = {
        "DATABASE_URL": database_url,
        # django-environ drops the first "/" of the path: "filemail:///tmp/x" would be the
        # relative "tmp/x" (in the server's working directory), so four slashes here.
        "EMAIL_URL": f"filemail:///{mailbox.path.resolve()}",
        # the browser tests sign up more players from 127.0.0.1 than the default allows
        "RATE_LIMIT_SIGNUP": "200/m/ip",
        # without Redis, a board of a game against a bot looks for its moves this often
        "BOT_TICK_SECONDS": "0.05",
    }
    with start_server(env=env, log=log) as (url,):
        register_mailbox(url, mailbox)
        try:
            yield url
        finally:
            register_mailbox(url, None)
    with django_db_blocker.unblock():
        wait_for_server_sessions_to_end()
