"""Reporting from the board: a small dialog with reasons, the thanks where the report was
made; a finished board links its analysis."""

import json
import uuid

import pytest

from moderation.models import Report

from .conftest import SCREENSHOTS
from .helpers import api_command, in_thread, log_in_by_cookie, wait_until_live
from .test_board import game_between  # noqa: F401 (a fixture)

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

LAPTOP = {"viewport": {"width": 1366, "height": 768}}
PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True}


def open_board(browser, base_url, user, game, device):
    context = browser.new_context(**device)
    log_in_by_cookie(context, base_url, user)
    page = context.new_page()
    page.goto(f"{base_url}/games/{game.pk}/")
    wait_until_live(page)
    return context, page


def say(page, text):
    page.fill("#chat-text", text)
    page.press("#chat-text", "Enter")


def focused(page):
    return page.evaluate(
        "() => { const e = document.activeElement;"
        " return e.dataset.reportMessage || e.dataset.reportGame !== undefined && 'game'"
        " || e.dataset.reported || e.name || e.tagName; }"
    )


@pytest.mark.parametrize("device", ["laptop", "phone"])
def test_a_chat_message_is_reported_through_the_dialog_and_thanked_beside_it(
    asgi_server,
    browser,
    game_between,  # noqa: F811
    screenshot,
    device,
):
    game, anna, bernd = game_between()
    anna_context, anna_page = open_board(browser, asgi_server, anna, game, LAPTOP)
    context, page = open_board(
        browser, asgi_server, bernd, game, {"laptop": LAPTOP, "phone": PHONE}[device]
    )
    say(anna_page, "you play like a landlubber")
    line = page.locator(".messages-list li.opponent")
    line.wait_for()
    message_id = line.get_attribute("data-message")
    dialog = page.locator("dialog.report-dialog")
    # Escape closes the dialog, nothing is sent, the focus is back on the button
    page.click("[data-report-message]")
    assert dialog.is_visible()
    assert focused(page) == "reason"  # the first reason has the focus
    page.keyboard.press("Escape")
    assert not dialog.is_visible()
    assert focused(page) == message_id
    # Cancel too
    page.keyboard.press("Enter")
    assert dialog.is_visible()
    page.click("[data-report-cancel]")
    assert not dialog.is_visible()
    assert in_thread(Report.objects.count) == 0
    # no reason chosen: the dialog says so and sends nothing
    page.click("[data-report-message]")
    assert "landlubber" in dialog.locator(".quoted").inner_text()
    page.click(".report-dialog button[type=submit]")
    error = dialog.locator(".report-error")
    assert error.is_visible() and "Choose what" in error.inner_text()
    page.check(".report-dialog input[value=abuse]")
    page.fill("#report-details", "the third insult today")
    screenshot(page, f"report-dialog-{device}")
    page.screenshot(path=str(SCREENSHOTS / f"report-dialog-{device}-viewport.png"))
    page.click(".report-dialog button[type=submit]")
    thanks = line.locator(".reported")
    thanks.wait_for()
    assert not dialog.is_visible()
    assert thanks.inner_text() == "Thank you: the moderators will look at it."
    assert line.locator("[data-report-message]").count() == 0
    assert page.locator("#board .alert").is_hidden()  # not at the top of the page
    assert focused(page) == f"message-{message_id}"
    screenshot(page, f"report-thanks-{device}")
    report = in_thread(Report.objects.get)
    assert report.reason == "Abuse or insults: the third insult today"
    assert report.message_id == int(message_id)
    # the thanks stay through the board's redrawing (a new message)
    say(anna_page, "sorry")
    page.locator(".messages-list li.opponent").nth(1).wait_for()
    assert line.locator(".reported").is_visible()
    anna_context.close()
    context.close()


def test_an_error_of_the_api_is_told_in_the_dialog_and_the_game_is_reported_beside_its_button(
    asgi_server,
    browser,
    game_between,  # noqa: F811
):
    game, anna, _ = game_between()
    context, page = open_board(browser, asgi_server, anna, game, LAPTOP)
    refusal = {"error": {"code": "rate_limited", "message": "Too many reports: wait a while."}}
    page.route(
        "**/api/reports/",
        lambda route: route.fulfill(
            status=429, body=json.dumps(refusal), content_type="application/json"
        ),
    )
    page.click("[data-report-game]")
    page.check(".report-dialog input[value=cheating]")
    page.click(".report-dialog button[type=submit]")
    error = page.locator(".report-dialog .report-error")
    error.wait_for()
    assert error.inner_text() == "Too many reports: wait a while."
    assert page.locator("dialog.report-dialog").is_visible()  # still open, to try again
    assert in_thread(Report.objects.count) == 0
    page.unroute("**/api/reports/")
    page.click(".report-dialog button[type=submit]")
    thanks = page.locator(".extras .reported")
    thanks.wait_for()
    assert page.locator("[data-report-game]").count() == 0
    report = in_thread(Report.objects.get)
    assert (report.game_id, report.reason) == (game.pk, "Cheating or stalling")
    context.close()


def test_a_finished_board_links_the_analysis(
    asgi_server,
    browser,
    game_between,  # noqa: F811
    screenshot,
):
    game, anna, bernd = game_between()
    context, page = open_board(browser, asgi_server, anna, game, LAPTOP)
    assert page.locator("[data-analysis]").count() == 0  # nothing to analyse yet
    api_command(asgi_server, bernd, game, {"type": "resign"}, str(uuid.uuid4()))
    link = page.locator("a[data-analysis]")
    link.wait_for()
    assert link.inner_text() == "The analysis of the game"
    screenshot(page, "finished-board-analysis-link")
    link.click()
    page.wait_for_url(f"**/games/{game.pk}/replay/#analysis")
    page.locator("#replay[data-step]").wait_for()
    analysis = page.locator("#analysis")
    assert analysis.is_visible()
    box = analysis.bounding_box()
    assert 0 <= box["y"] < 768, box  # scrolled to, once the steps above it are drawn
    context.close()
