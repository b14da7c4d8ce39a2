"""The board in Chromium: a computer opponent's name carries its tag ("computer ·
Captain") and its game has no chat box; a game between people has its chat and no tag."""

import pytest

from ..games.test_bot_marks import bot_of, game_against
from .helpers import in_thread, log_in_by_cookie
from .helpers import wait_until_live as live

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_the_board_marks_the_bot_and_has_no_chat_against_it(
    asgi_server, browser, django_user_model, screenshot
):
    anna = django_user_model.objects.create_user("anna", password="x")
    bernd = django_user_model.objects.create_user("bernd", password="x")
    against_bot = in_thread(lambda: game_against(anna, bot_of("captain")))
    between_people = in_thread(game_against, anna, bernd)
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    log_in_by_cookie(context, asgi_server, anna)
    page = context.new_page()

    page.goto(f"{asgi_server}/games/{against_bot.pk}/")
    live(page)
    heading = page.locator("#board .board-head h1")
    assert heading.locator(".opponent .tag.bot").inner_text() == "computer · Captain"
    assert heading.locator(".me .tag.bot").count() == 0
    assert page.locator("#board .chat").count() == 0
    assert page.locator("#board .chat-form").count() == 0
    screenshot(page, "bot-marks-board")

    page.goto(f"{asgi_server}/games/{between_people.pk}/")
    live(page)
    assert page.locator("#board .tag.bot").count() == 0
    assert page.locator("#board .chat .chat-form input").count() == 1

    page.goto(f"{asgi_server}/")
    row = page.locator("#lobby tr", has_text="Captain")
    assert row.locator(".tag.bot").inner_text() == "computer · Captain"
    assert page.locator("#lobby tr", has_text="bernd").locator(".tag.bot").count() == 0
    screenshot(page, "bot-marks-lobby")

    page.goto(f"{asgi_server}/users/Captain/")
    assert page.locator("main h1 .tag.bot").inner_text() == "computer · Captain"
    assert "cannot be messaged or logged into" in page.inner_text("main")
    screenshot(page, "bot-marks-profile")
    context.close()

    phone = browser.new_context(viewport={"width": 360, "height": 740}, is_mobile=True)
    log_in_by_cookie(phone, asgi_server, anna)
    page = phone.new_page()
    page.goto(f"{asgi_server}/games/{against_bot.pk}/")
    live(page)
    assert page.locator("#board .board-head h1 .tag.bot").is_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    screenshot(page, "bot-marks-board-phone")
    phone.close()
