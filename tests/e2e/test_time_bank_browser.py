"""A time bank game in the browser: anna chooses "Time bank" in the lobby's form (its three
terms appear, days per move goes), bernd sees the terms and accepts, and the board shows
both players' banks, each in its side's colour, in English and in German."""

import pytest

from games.clock import Bank
from games.models import Invitation

from .helpers import in_thread, log_in_by_cookie

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

SIZES = {"desktop": (1366, 768), "phone": (390, 844)}


def test_a_bank_game_from_the_lobby_to_the_board(
    asgi_server, browser, django_user_model, screenshot
):
    anna, bernd = (
        django_user_model.objects.create_user(name, password="x") for name in ("anna", "bernd")
    )
    context = browser.new_context(viewport={"width": 1366, "height": 768})
    page = context.new_page()
    log_in_by_cookie(context, asgi_server, anna)
    page.goto(asgi_server + "/")
    assert page.locator("#id_bank_start").is_hidden()  # days per move, the default
    page.check("input[name=clock][value=bank]")
    assert page.locator("#id_bank_start").is_visible()
    assert page.locator("#id_days_per_move").is_hidden()
    page.select_option("#id_bank_start", "48")
    page.select_option("#id_bank_increment", "12")
    page.select_option("#id_bank_cap", "120")
    page.fill("#id_to", "bernd")
    screenshot(page, "time-bank-form-en-desktop")
    with page.expect_navigation():
        page.get_by_role("button", name="Send invitation").click()
    assert "Invitation sent." in page.inner_text(".messages")
    invitation = in_thread(lambda: Invitation.objects.get(from_user=anna))
    assert Bank.of(invitation) == Bank(48, 12, 120)

    log_in_by_cookie(context, asgi_server, bernd)
    page.goto(asgi_server + "/")
    row = page.locator(".invitation", has_text="anna")
    assert "Time bank 2 days, +12 hours a move, at most 5 days" in row.inner_text()
    with page.expect_navigation():
        row.get_by_role("button", name="Accept").click()
    page.wait_for_selector("#board .banks")
    banks = page.locator("#board .banks")
    assert "Time bank" in banks.inner_text()
    assert page.locator("#board .bank.me").get_attribute("data-bank-seconds").isdigit()
    assert page.locator("#board .bank.opponent").count() == 1
    assert page.locator("#board .bank.running").count() == 1
    me = page.locator("#board .bank.me").evaluate("e => getComputedStyle(e).color")
    them = page.locator("#board .bank.opponent").evaluate("e => getComputedStyle(e).color")
    assert me != them
    for size, (width, height) in SIZES.items():
        page.set_viewport_size({"width": width, "height": height})
        screenshot(page, f"time-bank-board-en-{size}")
    page.goto(asgi_server + "/")
    assert "Time bank 2 days, +12 hours a move, at most 5 days" in page.inner_text("main")
    context.close()

    german = browser.new_context(locale="de-DE", viewport={"width": 1366, "height": 768})
    page = german.new_page()
    log_in_by_cookie(german, asgi_server, anna)
    page.goto(asgi_server + "/")
    assert "Zeitkonto 2 Tage, +12 Stunden pro Zug, höchstens 5 Tage" in page.inner_text("main")
    page.locator("main a", has_text="Partie").first.click()
    page.wait_for_selector("#board .banks")
    assert "Zeitkonto" in page.inner_text("#board .banks")
    screenshot(page, "time-bank-board-de-desktop")
    german.close()
