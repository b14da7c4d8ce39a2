"""A German, a French and an Italian player: their browser's language, all the way to
the final score. Every text they see is in that language."""

import random

import pytest

from ..helpers.i18n import english_in
from .conftest import SCREENSHOTS
from .helpers import board, sign_up, version, wait_for_version_above, wait_until_live
from .test_board import act

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

BROWSER_LOCALES = {"de": "de-DE", "fr": "fr-FR", "it": "it-IT"}


def no_english(page, language: str, where: str) -> None:
    text = page.inner_text("body")
    assert english_in(text, language) == [], f"English on the {where} ({language})"


@pytest.mark.parametrize("language", list(BROWSER_LOCALES))
def test_a_player_plays_in_the_browsers_language(asgi_server, browser, screenshot, language):
    locale = BROWSER_LOCALES[language]
    contexts = [
        browser.new_context(locale=locale, viewport={"width": 1280, "height": 900})
        for _ in range(2)
    ]
    me, other = (context.new_page() for context in contexts)
    names = (f"{language}me", f"{language}other")
    for page, name in zip((me, other), names, strict=True):
        sign_up(page, asgi_server, name)
        assert page.get_attribute("html", "lang") == language
    no_english(me, language, "lobby")
    screenshot(me, f"lobby-{language}")

    me.fill("#id_to", names[1])
    with me.expect_navigation():
        me.click("form[action='/invitations/new/'] button[type=submit]")
    other.reload()
    with other.expect_navigation():
        other.click(".invitation form[action*='accept'] button")
    me.goto(other.url)
    for page in (me, other):
        wait_until_live(page)
    no_english(me, language, "board")
    screenshot(me, f"board-{language}")

    rng, shots, seen_round_end = random.Random(3), set(), False
    for _ in range(600):
        if board(me)["status"] == "finished":
            break
        actor = me if board(me)["turn"] == "me" else other
        if me.locator(".round-end").count() and not seen_round_end:
            seen_round_end = True
            no_english(me, language, "round end")
            screenshot(me, f"round-end-{language}")
        before = version(actor)
        act(actor, rng, shots, lambda *args: None)
        wait_for_version_above(actor, before)
        me.wait_for_function(
            "v => Number(document.getElementById('board').dataset.version) >= v",
            arg=version(actor),
        )
    else:
        raise AssertionError("the game did not end")
    me.wait_for_selector(".result")
    assert seen_round_end
    no_english(me, language, "final score")
    screenshot(me, f"final-score-{language}")

    # How to play, in the same language, its examples drawn by the board's renderer
    me.goto(asgi_server + "/rules/")
    me.wait_for_selector('#rules[data-drawn="true"]')
    no_english(me, language, "rules page")
    me.locator("#example-distribution").screenshot(
        path=str(SCREENSHOTS / f"rules-example-{language}.png")
    )
    for context in contexts:
        context.close()
