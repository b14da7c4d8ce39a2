"""Driving the site in Chromium: signing up, reading the board, waiting for pushes."""

from __future__ import annotations

import concurrent.futures
import email
import re
import time
from email import policy
from email.message import EmailMessage
from email.utils import getaddresses
from pathlib import Path

PASSWORD = "tavern-dice-42"
CONFIRMATION_LINK = re.compile(r"https?://[^\s/]+/accounts/confirm-email/[^\s/]+/")


class Mailbox:
    """The emails a test server wrote with Django's file backend (EMAIL_URL=filemail://…):
    one file per connection, each message followed by a line of 79 dashes."""

    SEPARATOR = b"-" * 79 + b"\n"

    def __init__(self, path: Path):
        self.path = Path(path)

    def messages(self) -> list[EmailMessage]:
        """Every email written so far, oldest first."""
        files = sorted(self.path.glob("*.log"), key=lambda f: (f.stat().st_mtime_ns, f.name))
        return [
            email.message_from_bytes(chunk, policy=policy.default)
            for file in files
            for chunk in file.read_bytes().split(self.SEPARATOR)
            if chunk.strip()
        ]

    def newest(self, to: str, timeout: float = 10) -> EmailMessage:
        """The newest email to ``to``, waiting up to ``timeout`` seconds for one."""
        deadline = time.monotonic() + timeout
        while True:
            for message in reversed(self.messages()):
                recipients = getaddresses(message.get_all("To", []))
                if any(address.lower() == to.lower() for _, address in recipients):
                    return message
            if time.monotonic() > deadline:
                raise AssertionError(f"no email to {to} in {self.path}")
            time.sleep(0.1)

    def confirmation_link(self, to: str, timeout: float = 10) -> str:
        """The address-confirmation link in the newest email to ``to``."""
        body = self.newest(to, timeout).get_body(preferencelist=("plain",)).get_content()
        match = CONFIRMATION_LINK.search(body)
        assert match, f"no confirmation link in the email to {to}:\n{body}"
        return match.group(0)


# The mailbox of each running test server, by its base URL (conftest's asgi_server).
_mailboxes: dict[str, Mailbox] = {}


def register_mailbox(base_url: str, mailbox: Mailbox | None) -> None:
    if mailbox is None:
        _mailboxes.pop(base_url, None)
    else:
        _mailboxes[base_url] = mailbox


def mailbox_of(base_url: str) -> Mailbox:
    try:
        return _mailboxes[base_url]
    except KeyError:
        raise AssertionError(
            f"no mailbox for {base_url}: sign up on the asgi_server fixture's server"
        ) from None


def in_thread(fn, *args, **kwargs):
    """Run database work off Playwright's event-loop thread (it would refuse async_to_sync)."""
    from django.db import connections

    def run():
        try:
            return fn(*args, **kwargs)
        finally:
            connections.close_all()  # the thread's own connections, or the test DB stays busy

    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(run).result()


def sign_up(
    page, base_url: str, username: str, mailbox: Mailbox | None = None, *, confirm: bool = True
) -> str:
    """Sign up through the sign-up page, which asks to confirm the address, then confirm
    it through the emailed link (the browser that signed up is then logged in), or, with
    ``confirm`` false, log in with the password, landing in the lobby with the banner
    asking for the address. Returns the address, ``<username>@example.org``."""
    address = f"{username}@example.org"
    page.goto(base_url + "/accounts/signup/")
    page.fill("#id_username", username)
    page.fill("#id_email", address)
    page.fill("#id_password1", PASSWORD)
    page.fill("#id_password2", PASSWORD)
    with page.expect_navigation():
        page.click("main button[type=submit]")
    assert page.url == base_url + "/accounts/confirm-email/", page.url
    if confirm:
        confirm_address(page, base_url, address, mailbox)
        return address
    page.goto(base_url + "/accounts/login/")
    page.fill("#id_login", username)
    page.fill("#id_password", PASSWORD)
    with page.expect_navigation():
        page.click("main button[type=submit]")
    assert page.url.rstrip("/") == base_url, page.url
    assert page.locator("div.email-banner").count() == 1, "no banner for the new address"
    return address


def open_confirmation_link(page, base_url: str, address: str, mailbox: Mailbox | None = None):
    """Open the link of the newest email to ``address``: the page with its Confirm button."""
    link = (mailbox or mailbox_of(base_url)).confirmation_link(address)
    assert link.startswith(base_url + "/"), link
    page.goto(link)
    button = page.locator("main form[action*='/confirm-email/'] button[type=submit]")
    assert button.count() == 1, page.inner_text("main")
    return button


def confirm_address(page, base_url: str, address: str, mailbox: Mailbox | None = None) -> None:
    """Confirm ``address`` as its owner would, in the browser that signed up or logged
    in: the emailed link, the Confirm button, and the lobby without the banner asking
    for it."""
    button = open_confirmation_link(page, base_url, address, mailbox)
    with page.expect_navigation():
        button.click()
    assert_lobby_without_banner(page, base_url)


def assert_lobby_without_banner(page, base_url: str) -> None:
    if page.url.rstrip("/") != base_url:
        page.goto(base_url + "/")
    assert page.locator("div.email-banner").count() == 0, page.inner_text("main")


def log_in_by_cookie(context, base_url: str, user) -> None:
    """Log a user in without typing: a session made in the test process."""
    from django.test import Client

    client = Client()
    in_thread(client.force_login, user)
    context.add_cookies(
        [{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": base_url}]
    )


def version(page) -> int:
    return int(page.get_attribute("#board", "data-version"))


def board(page) -> dict:
    return page.eval_on_selector(
        "#board", "el => ({...el.dataset, version: Number(el.dataset.version)})"
    )


def wait_until_live(page) -> None:
    """Wait until the board's socket is open: before that, a click only says "Not connected"."""
    page.wait_for_selector('#board[data-connection="open"]')


def wait_for_version_above(page, old: int, timeout: float = 15000) -> None:
    page.wait_for_function(
        "old => { const b = document.getElementById('board');"
        " return b && Number(b.dataset.version) > old && b.dataset.pending === 'false'; }",
        arg=old,
        timeout=timeout,
    )


def api_command(base_url: str, user, game, command: dict, client_id: str) -> dict:
    """A move made through the server (so its push reaches every socket), by API token."""
    import json
    import urllib.request

    from accounts.models import ApiToken

    _, raw = in_thread(ApiToken.issue, user, "test")
    request = urllib.request.Request(
        f"{base_url}/api/games/{game.pk}/commands/",
        data=json.dumps(
            {"command": command, "expected_version": game.version, "client_id": client_id}
        ).encode(),
        headers={"Authorization": f"Bearer {raw}", "Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())
