"""Driving the site in Chromium: signing up, reading the board, waiting for pushes."""

from __future__ import annotations

import concurrent.futures

PASSWORD = "tavern-dice-42"


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


def sign_up(page, base_url: str, username: str) -> None:
    page.goto(base_url + "/accounts/signup/")
    page.fill("#id_username", username)
    page.fill("#id_email", f"{username}@example.org")
    page.fill("#id_password1", PASSWORD)
    page.fill("#id_password2", PASSWORD)
    with page.expect_navigation():
        page.click("main button[type=submit]")
    assert page.url.rstrip("/") == base_url, page.url


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
