"""Push notifications in Chromium: the offer after a first move (never on opening a
page), turning them off and on again from the settings page, and the worker's "your turn" push,
which the test's own push service receives and decrypts.

Chromium's push service is Google's, out of reach here: the page's PushManager hands out
a subscription whose endpoint is the test's push service on 127.0.0.1 and whose keys the
test made (an init script). Everything else is the site's: its scripts, its service
worker, its API, and a real worker process; the server runs with DJANGO_DEBUG=1, the one
setting under which it posts to a local endpoint.
"""

import json
import os
import random
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from ..daphne import start_server
from ..helpers.databases import database_url
from ..helpers.push_service import Device, serve, vapid_claims
from .helpers import in_thread, log_in_by_cookie, wait_until_live

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

ROOT = Path(__file__).resolve().parents[2]
PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True}

# The browser's side of push, as Chromium's own would answer, but reaching the test's
# push service; the subscription survives reloads as a real one does.
FAKE_PUSH_MANAGER = """
(() => {
  const fake = %s;
  const stored = () => localStorage.getItem("fake-push-key");
  const bytes = (b64) => Uint8Array.from(
    atob(b64.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0)).buffer;
  const subscription = (key) => ({
    endpoint: fake.endpoint,
    expirationTime: null,
    options: { userVisibleOnly: true, applicationServerKey: bytes(key) },
    toJSON() { return { endpoint: fake.endpoint, expirationTime: null, keys: fake.keys }; },
    unsubscribe() { localStorage.removeItem("fake-push-key"); return Promise.resolve(true); },
  });
  PushManager.prototype.subscribe = function (options) {
    const raw = new Uint8Array(options.applicationServerKey);
    const key = btoa(String.fromCharCode(...raw)).replace(/\\+/g, "-").replace(/\\//g, "_")
      .replace(/=+$/, "");
    localStorage.setItem("fake-push-key", key);
    return Promise.resolve(subscription(key));
  };
  PushManager.prototype.getSubscription = function () {
    return Promise.resolve(stored() ? subscription(stored()) : null);
  };
})();
"""


@pytest.fixture(scope="module")
def debug_server(django_db_setup, django_db_blocker):
    with django_db_blocker.unblock():
        url = database_url()
    log = Path(__file__).parent / "screenshots" / "push-daphne.log"
    log.parent.mkdir(exist_ok=True)
    with start_server(env={"DATABASE_URL": url, "DJANGO_DEBUG": "1"}, log=log) as (base,):
        yield base


@pytest.fixture
def push_service():
    service, server = serve()
    yield service
    server.shutdown()
    server.server_close()


def play_until(game_id: int, done) -> None:
    """Legal moves of whoever is to move, through the services, until ``done(game)``."""
    from games import rules
    from games.models import Game
    from games.services import commands

    rng = random.Random(game_id)
    while True:
        game = Game.objects.get(pk=game_id)
        if done(game) or game.status != Game.Status.ACTIVE:
            return
        state = game.rules_state()
        mover = game.seats.get(seat=state.turn).user
        command = rules.random_command(state, state.turn, rng)
        commands.do_command(game.pk, mover, command, game.version, str(uuid.uuid4()))


def turn_of(user):
    return lambda game: game.to_move_id == user.pk


def not_turn_of(user):
    return lambda game: game.to_move_id != user.pk


def wait_for(check, timeout=15.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if value := in_thread(check):
            return value
        time.sleep(0.1)
    raise AssertionError(f"still not: {check.__doc__ or check}")


def run_worker_once() -> str:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "shanghaien.settings",
        "DATABASE_URL": in_thread(database_url),
        "DJANGO_DEBUG": "1",
    }
    result = subprocess.run(
        [sys.executable, "manage.py", "run_worker", "--once", "--job", "pushes"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return result.stderr  # the worker's log lines


def test_a_player_turns_push_on_and_the_worker_delivers_your_turn(
    debug_server, browser, django_user_model, push_service, screenshot
):
    from accounts.models import PushSubscription
    from games.services import invitations

    nora = in_thread(django_user_model.objects.create_user, "nora", password="x")
    olga = in_thread(django_user_model.objects.create_user, "olga", password="x")
    invitation = in_thread(invitations.do_invite, olga, to="nora")
    game = in_thread(invitations.do_accept_invitation, invitation.pk, nora)
    in_thread(play_until, game.pk, turn_of(nora))

    device = Device()
    context = browser.new_context(**PHONE)
    context.add_init_script(
        FAKE_PUSH_MANAGER % json.dumps(device.subscription(push_service.endpoint("nora")))
    )
    log_in_by_cookie(context, debug_server, nora)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))

    # The offer comes after a move, never when the page opens.
    page.goto(f"{debug_server}/games/{game.pk}/")
    wait_until_live(page)
    offer = page.locator("#push-offer")
    assert offer.is_hidden()
    page.locator('[data-action="roll"]').click()
    offer.wait_for(state="visible")
    assert "when it is your turn" in offer.inner_text()
    screenshot(page, "push-offer-after-first-move")
    context.grant_permissions(["notifications"], origin=debug_server)
    offer.locator("text=Yes, notify me").click()

    def subscribed():
        """the browser's subscription reached the server"""
        return PushSubscription.objects.filter(user__username="nora").first()

    stored = wait_for(subscribed)
    assert stored.endpoint == push_service.endpoint("nora")
    assert stored.p256dh == device.p256dh and "Chrome" in stored.user_agent
    assert offer.is_hidden()
    page.reload()
    wait_until_live(page)
    shown_again = page.evaluate(
        "() => import('/static/js/push.js').then((m) => m.offerAfterMove())"
        ".then(() => document.getElementById('push-offer').hidden)"
    )
    assert shown_again is True  # answered once on this device: never again

    # The settings page says so, lists the device, and turns it off and on again.
    page.goto(f"{debug_server}/settings/#devices")
    state = page.locator(".push-state")
    page.wait_for_selector('.push-state[data-push-state="on"]')
    assert "This browser receives your notifications." in state.inner_text()
    assert "Chrome on" in page.locator("#devices .device").inner_text()
    screenshot(page, "push-profile-on")
    with page.expect_navigation():
        page.click("text=Turn them off in this browser")
    page.wait_for_selector('.push-state[data-push-state="off"]')
    assert in_thread(PushSubscription.objects.count) == 0
    assert page.locator("#devices .device").count() == 0
    with page.expect_navigation():
        page.click("text=Turn on notifications in this browser")
    page.wait_for_selector('.push-state[data-push-state="on"]')
    assert page.locator("#devices .device").count() == 1
    key = page.get_attribute("#devices", "data-push-key")
    screenshot(page, "push-profile-on-again")

    # Nora's turn ends, olga moves, and the worker pushes "your turn" to nora's phone.
    in_thread(play_until, game.pk, not_turn_of(nora))
    in_thread(play_until, game.pk, turn_of(nora))
    said = run_worker_once()
    assert "pushes: 1" in said, said
    (received,) = push_service.to("nora")
    payload = device.decrypt(received)
    assert payload["title"] == "Your turn against olga"
    assert payload["url"] == f"/games/{game.pk}/" and payload["tag"] == f"game-{game.pk}"
    assert vapid_claims(received, key)["aud"] == push_service.url
    assert received.headers["topic"] == f"game-{game.pk}"
    assert errors == []
    context.close()
