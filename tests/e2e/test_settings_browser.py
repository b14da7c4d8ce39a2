"""The settings page in Chromium: reached from the header, the browser's time zone
preselected for a player who never chose one (and only for them), saved when the player
saves; screenshots at a laptop's and a phone's size, in English and German."""

import pytest

from accounts.models import User

from .helpers import in_thread, log_in_by_cookie

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

LAPTOP = {"viewport": {"width": 1366, "height": 768}}
PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True}


def player(name: str, **fields) -> User:
    return in_thread(lambda: User.objects.create_user(name, password="x", **fields))


def stored_zone(name: str) -> str:
    return in_thread(lambda: User.objects.get(username=name).time_zone)


def test_the_browsers_zone_is_preselected_for_a_player_who_never_chose(asgi_server, browser):
    user = player("tomoko")  # at the default zone, UTC
    context = browser.new_context(**LAPTOP, timezone_id="Asia/Tokyo")
    log_in_by_cookie(context, asgi_server, user)
    page = context.new_page()
    page.goto(asgi_server + "/rules/")
    with page.expect_navigation():
        page.click("header >> text=Settings")  # the header's link, on any page
    assert page.url == asgi_server + "/settings/"
    picker = page.locator("select[name=time_zone]")
    page.wait_for_function("document.querySelector('select[name=time_zone]').value !== 'UTC'")
    assert picker.input_value() == "Asia/Tokyo"
    assert page.locator(".zone-from-browser").is_visible()
    chosen = picker.evaluate("s => s.selectedOptions[0].textContent")
    assert chosen == "Asia — Tokyo (UTC+09:00)"
    assert stored_zone("tomoko") == "UTC"  # nothing saved before the player saves
    with page.expect_navigation():
        page.click("#preferences button[type=submit]")
    assert page.url == asgi_server + "/settings/#notifications"
    assert stored_zone("tomoko") == "Asia/Tokyo"
    page.reload()
    assert picker.input_value() == "Asia/Tokyo"
    assert not page.locator(".zone-from-browser").is_visible()
    context.close()


def test_a_chosen_zone_stays_whatever_the_browser_says(asgi_server, browser):
    user = player("rosa", time_zone="Europe/Rome")
    context = browser.new_context(**LAPTOP, timezone_id="Asia/Tokyo")
    log_in_by_cookie(context, asgi_server, user)
    page = context.new_page()
    page.goto(asgi_server + "/settings/")
    page.wait_for_load_state("load")
    picker = page.locator("select[name=time_zone]")
    assert picker.input_value() == "Europe/Rome"
    first = picker.evaluate("s => [...s.options].slice(0, 3).map(o => o.value)")
    assert first == ["Europe/Rome", "Europe/Berlin", "Europe/Vienna"]  # own zone, then common
    assert not page.locator(".zone-from-browser").is_visible()
    context.close()


@pytest.mark.parametrize("language", ["en", "de"])
@pytest.mark.parametrize(("device", "size"), [(LAPTOP, "1366"), (PHONE, "390")])
def test_the_settings_page_at_a_laptops_and_a_phones_size(
    asgi_server, browser, screenshot, language, device, size
):
    user = player(f"set{language}{size}", language=language)
    context = browser.new_context(**device, timezone_id="Europe/Berlin", locale=language)
    log_in_by_cookie(context, asgi_server, user)
    page = context.new_page()
    page.goto(asgi_server + "/settings/")
    page.wait_for_selector("#devices .push-state:not([data-push-state='unknown'])")
    heading = {"en": "Settings", "de": "Einstellungen"}[language]
    assert page.locator("main h1").inner_text() == heading
    assert page.locator("header a[href='/settings/'][aria-current=page]").inner_text() == heading
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    whole = screenshot(page, f"settings-{language}-{size}")  # the whole page
    page.screenshot(path=str(whole.with_name(whole.stem + "-first-view.png")))
    context.close()
