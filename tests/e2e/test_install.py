"""The site as an installed app, in Chromium on a phone: installable (the browser's own
checks, through the DevTools protocol), its lobby kept by the service worker and shown
without a connection under a banner saying so, the offline page for any other page, and
notifications pushed to the real worker, one per tag."""

import json
import time

import pytest

from .conftest import LAUNCH_ARGS, chromium_path
from .helpers import in_thread, sign_up

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

PHONE = {"viewport": {"width": 360, "height": 740}, "has_touch": True, "is_mobile": True}


def wait_for_worker(page) -> None:
    """Until the page is controlled by the activated worker."""
    page.wait_for_function(
        "() => navigator.serviceWorker.controller"
        " && navigator.serviceWorker.controller.state === 'activated'",
        timeout=15000,
    )
    assert page.evaluate("async () => (await navigator.serviceWorker.ready).active.state") == (
        "activated"
    )


def until(page, script: str, arg=None, *, accept=bool, timeout: float = 10):
    """The value of ``script`` (a function, async ones too) in the page once ``accept``
    takes it. (page.wait_for_function takes the promise of an async function for a true
    answer and returns at once.)"""
    deadline = time.monotonic() + timeout
    while True:
        value = page.evaluate(script, arg)
        if accept(value):
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"after {timeout} s still {value!r}: {script}")
        page.wait_for_timeout(100)


def wait_for_lobby_copy(page) -> None:
    until(page, "async () => Boolean(await caches.match('/', {cacheName: 'pages'}))")


def banner_lines(page) -> dict:
    return page.eval_on_selector_all(
        "#offline-banner [data-case]",
        "lines => Object.fromEntries(lines.map(l => [l.dataset.case, l.checkVisibility()]))",
    )


@pytest.fixture
def phone(browser):
    context = browser.new_context(**PHONE)
    yield context
    context.close()


@pytest.fixture
def phone_with_profile(browser, tmp_path):
    """A phone's browser with a profile of its own on disk: Chromium installs no app from a
    context without one (browser.new_context is off the record: "in-incognito")."""
    context = browser.browser_type.launch_persistent_context(
        tmp_path / "profile",
        executable_path=chromium_path(),
        headless=True,
        args=LAUNCH_ARGS,
        **PHONE,
    )
    yield context
    context.close()


def test_the_app_installs_and_shows_the_lobby_it_kept_when_offline(
    asgi_server, phone_with_profile, django_user_model, screenshot
):
    from games.services import invitations

    phone = phone_with_profile

    page = phone.new_page()
    refused = []  # the policy allows no inline script or style: nothing may need one
    page.on("console", lambda m: "Content Security Policy" in m.text and refused.append(m.text))
    sign_up(page, asgi_server, "wilma")
    wilma = in_thread(django_user_model.objects.get, username="wilma")
    olga = in_thread(django_user_model.objects.create_user, "olga", password="x")
    in_thread(invitations.do_invite, olga, to="wilma")
    page.goto(asgi_server + "/")
    wait_for_worker(page)

    cdp = phone.new_cdp_session(page)
    manifest = cdp.send("Page.getAppManifest")
    assert manifest["url"] == asgi_server + "/manifest.webmanifest"
    assert manifest["errors"] == [], manifest["errors"]
    data = json.loads(manifest["data"])
    assert (data["name"], data["start_url"], data["display"]) == ("Shanghaien", "/", "standalone")
    assert cdp.send("Page.getInstallabilityErrors")["installabilityErrors"] == []

    # the lobby's stylesheet and every script it loads, imports included, are kept
    missing = page.evaluate(
        """async () => {
          const names = (await caches.keys()).filter((name) => name.startsWith('shell-'));
          const loaded = performance.getEntriesByType('resource').map((e) => e.name)
            .filter((url) => new URL(url).pathname.startsWith('/static/'));
          const missing = [];
          for (const url of loaded) {
            if (!(await caches.match(url, {cacheName: names[0]}))) missing.push(url);
          }
          return [names.length, loaded.length, missing];
        }"""
    )
    assert missing[0] == 1 and missing[1] >= 3 and missing[2] == [], missing

    # the worker controls the page now: this visit of the lobby is the one it keeps
    page.reload()
    wait_for_lobby_copy(page)
    assert banner_lines(page) == {"copy": False, "offline": False}
    screenshot(page, "install-lobby-phone")

    # the connection drops under an open page: the banner says so, and goes with it
    phone.set_offline(True)
    page.wait_for_function("() => !navigator.onLine")
    assert banner_lines(page) == {"copy": False, "offline": True}
    screenshot(page, "install-connection-lost-phone")
    phone.set_offline(False)
    page.wait_for_function("() => navigator.onLine")
    assert banner_lines(page) == {"copy": False, "offline": False}

    # offline, the lobby is the copy the worker kept: games, invitations, and the banner
    phone.set_offline(True)
    page.reload()
    assert page.get_attribute("body", "data-offline-copy")
    assert banner_lines(page) == {"copy": True, "offline": False}
    saved_at = page.locator("#offline-banner time")
    assert saved_at.get_attribute("datetime") and saved_at.inner_text().strip()
    assert page.locator("#lobby h1").inner_text() == "Your games"
    assert page.locator("#lobby .invitation").first.inner_text().startswith("olga invites you")
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    screenshot(page, "install-offline-lobby-phone")

    # back online: the copy reloads itself into the lobby as it is now (at the browser's
    # "online", or when it next asks the site: Chromium's emulated offline state does not
    # always reach a page loaded while offline, whose navigator.onLine may stay true)
    with page.expect_navigation(timeout=20000):
        phone.set_offline(False)
    page.wait_for_selector("#lobby h1")
    assert page.get_attribute("body", "data-offline-copy") is None
    assert banner_lines(page) == {"copy": False, "offline": False}
    assert wilma.username in page.inner_text("header")

    # offline, any other page is the offline page, with nothing of the player's in it
    phone.set_offline(True)
    page.goto(asgi_server + "/ranking/")
    assert page.url == asgi_server + "/ranking/"
    assert page.locator("main h1").inner_text() == "You are offline"
    assert page.locator("header nav").count() == 0
    assert wilma.username not in page.content()
    assert banner_lines(page) == {"copy": False, "offline": False}
    with page.expect_navigation():
        page.click("#try-again")
    assert page.locator("main h1").inner_text() == "You are offline"
    screenshot(page, "install-offline-page-phone")
    phone.set_offline(False)
    with page.expect_navigation():
        page.click("#try-again")
    assert page.locator("main h1").inner_text() != "You are offline"
    assert wilma.username in page.inner_text("header")
    assert refused == []


def test_a_page_for_a_visitor_drops_the_lobby_a_player_left_behind(asgi_server, phone):
    page = phone.new_page()
    sign_up(page, asgi_server, "xenia", confirm=False)
    page.goto(asgi_server + "/")
    wait_for_worker(page)
    page.reload()
    wait_for_lobby_copy(page)
    # the session ends without a page of the site seeing it go (it expired, say): the
    # next page for a visitor, whichever it is, drops the copy
    phone.clear_cookies()
    page.goto(asgi_server + "/rules/")
    until(page, "async () => !(await caches.has('pages'))")
    phone.set_offline(True)
    page.goto(asgi_server + "/")
    assert page.locator("main h1").inner_text() == "You are offline"
    assert "xenia" not in page.content()


def registration_id(page, cdp, origin: str) -> str:
    """The worker's registration, as DevTools knows it."""
    found = {}

    def updated(event):
        for registration in event["registrations"]:
            if registration["scopeURL"] == origin + "/" and not registration["isDeleted"]:
                found["id"] = registration["registrationId"]

    cdp.on("ServiceWorker.workerRegistrationUpdated", updated)
    cdp.send("ServiceWorker.enable")
    for _ in range(50):
        if "id" in found:
            return found["id"]
        page.wait_for_timeout(100)  # the events arrive while Playwright waits
    raise AssertionError("no registration of the worker reported")


# The notifications shown with a tag, or null while there is none.
NOTIFICATIONS = """async (tag) => {
  const registration = await navigator.serviceWorker.ready;
  const shown = (await registration.getNotifications({tag}))
    .map((n) => ({title: n.title, body: n.body, tag: n.tag, lang: n.lang,
                  icon: n.icon, badge: n.badge, url: n.data && n.data.url}));
  return shown.length ? shown : null;
}"""


def test_a_push_shows_one_notification_a_tag(asgi_server, phone):
    phone.grant_permissions(["notifications"], origin=asgi_server)
    page = phone.new_page()
    sign_up(page, asgi_server, "yvonne", confirm=False)
    page.goto(asgi_server + "/")
    wait_for_worker(page)
    cdp = phone.new_cdp_session(page)
    registration = registration_id(page, cdp, asgi_server)

    def push(payload: dict) -> None:
        cdp.send(
            "ServiceWorker.deliverPushMessage",
            {"origin": asgi_server, "registrationId": registration, "data": json.dumps(payload)},
        )

    message = {
        "title": "Your turn against olga",
        "body": "olga rolled a 6.",
        "url": "/games/7/",
        "tag": "game-7",
        "lang": "en",
    }
    push(message)
    [shown] = until(page, NOTIFICATIONS, "game-7")
    assert (shown["title"], shown["body"], shown["lang"]) == (
        "Your turn against olga",
        "olga rolled a 6.",
        "en",
    )
    assert shown["url"] == "/games/7/"
    assert shown["icon"].endswith("/static/img/icon-192.png")
    assert shown["badge"].endswith("/static/img/badge-96.png")

    push({**message, "body": "olga called Shanghai!"})

    def bodies(shown):
        return [n["body"] for n in shown or []]

    # the newer replaces the older: one notification, with the newer words
    until(page, NOTIFICATIONS, "game-7", accept=lambda s: bodies(s) == ["olga called Shanghai!"])
    page.wait_for_timeout(500)
    assert bodies(page.evaluate(NOTIFICATIONS, "game-7")) == ["olga called Shanghai!"]

    # a push the worker cannot read: its own words, and a link to the lobby only
    cdp.send(
        "ServiceWorker.deliverPushMessage",
        {"origin": asgi_server, "registrationId": registration, "data": "not json"},
    )
    [fallback] = until(page, NOTIFICATIONS, "shanghaien")
    assert fallback["title"] == "Shanghaien" and fallback["url"] == "/"
