"""The board in Chromium against a bot account: its name carries the tag "bot" (from the
game JSON's ``bots``), the game has no chat box, and the bot account may be blocked."""

import pytest

from games.services import invitations

from .helpers import in_thread, log_in_by_cookie
from .helpers import wait_until_live as live

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def casual_game(inviter, invited):
    invitation = invitations.do_invite(inviter, to=invited.username, rated=False)
    return invitations.do_accept_invitation(invitation.pk, invited)


def test_the_board_marks_a_bot_account(asgi_server, browser, django_user_model, screenshot):
    anna = django_user_model.objects.create_user("anna", password="x")
    robo = django_user_model.objects.create_user("robo", password="x", bot_account=True)
    game = in_thread(casual_game, anna, robo)
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    log_in_by_cookie(context, asgi_server, anna)
    page = context.new_page()

    page.goto(f"{asgi_server}/games/{game.pk}/")
    live(page)
    heading = page.locator("#board .board-head h1")
    assert heading.locator(".opponent .tag.bot").inner_text() == "bot"
    assert heading.locator(".me .tag.bot").count() == 0
    assert page.locator("#board .chat-form").count() == 0
    assert page.locator("#board button[data-block]").count() == 1  # it may be blocked
    screenshot(page, "bot-account-board")

    page.goto(f"{asgi_server}/")
    row = page.locator("#lobby tr", has_text="robo")
    assert row.locator(".tag.bot").inner_text() == "bot"

    page.goto(f"{asgi_server}/users/robo/")
    assert page.locator("main h1 .tag.bot").inner_text() == "bot"
    assert "a program run by its owner" in page.inner_text("main")
    screenshot(page, "bot-account-profile")
    context.close()
