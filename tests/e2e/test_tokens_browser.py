"""The API tokens on the settings page, in Chromium: a token made with chosen scopes and
an expiry, its value shown once, then listed with its scopes, last use and expiry, used
once by a program, and revoked; screenshots at a laptop's and a phone's size, in English
and German."""

import urllib.error
import urllib.request

import pytest

from accounts.models import ApiToken, User

from .conftest import SCREENSHOTS
from .helpers import in_thread, log_in_by_cookie

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

LAPTOP = {"viewport": {"width": 1366, "height": 768}}
PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True}

WORDS = {
    "en": {"create": "Create a token", "revoke": "Revoke", "back": "Back to your settings"},
    "de": {
        "create": "Token erstellen",
        "revoke": "Widerrufen",
        "back": "Zurück zu deinen Einstellungen",
    },
}


def status_with(base_url: str, raw: str, path: str = "/api/holidays/") -> int:
    request = urllib.request.Request(base_url + path, headers={"Authorization": f"Bearer {raw}"})
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status
    except urllib.error.HTTPError as error:
        return error.code


@pytest.mark.parametrize("language", ["en", "de"])
@pytest.mark.parametrize(("device", "size"), [(LAPTOP, "1366"), (PHONE, "390")])
def test_a_token_made_listed_used_and_revoked_from_the_settings_page(
    asgi_server, browser, screenshot, language, device, size
):
    name = f"tok{language}{size}"
    user = in_thread(lambda: User.objects.create_user(name, password="x", language=language))
    context = browser.new_context(**device, locale=language)
    log_in_by_cookie(context, asgi_server, user)
    page = context.new_page()
    page.goto(asgi_server + "/settings/#tokens")
    tokens = page.locator("#tokens")
    tokens.locator("input[name=name]").fill("my bot")
    # read and play are ticked already; the bot scope too, and 30 days
    tokens.locator("input[name=scopes][value=bot]").check()
    tokens.locator("select[name=expires_in_days]").select_option("30")
    tokens.screenshot(path=str(SCREENSHOTS / f"tokens-form-{language}-{size}.png"))
    with page.expect_navigation():
        tokens.locator("button", has_text=WORDS[language]["create"]).click()
    raw = page.locator("#token").inner_text()
    assert raw.startswith("shg_")
    screenshot(page, f"tokens-created-{language}-{size}")
    made = in_thread(lambda: ApiToken.objects.get(user=user))
    assert made.scope_set == {"read", "play", "bot"} and made.expires_at is not None

    assert status_with(asgi_server, raw) == 200  # a program uses it once
    with page.expect_navigation():
        page.click(f"text={WORDS[language]['back']}")
    row = page.locator("#tokens .token-row")
    assert row.count() == 1
    text = row.inner_text()
    for scope in ("read", "play", "bot"):
        assert scope in text  # the scopes' names are the API's own, in every language
    never_used = {"en": "never used", "de": "nie benutzt"}[language]
    assert never_used not in text  # its last use shows
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    page.locator("#tokens").screenshot(path=str(SCREENSHOTS / f"tokens-list-{language}-{size}.png"))

    with page.expect_navigation():
        row.locator("button", has_text=WORDS[language]["revoke"]).click()
    assert page.locator("#tokens .token-row").count() == 0
    assert not in_thread(lambda: ApiToken.objects.filter(user=user).exists())
    assert status_with(asgi_server, raw) == 401  # refused at once
    context.close()
