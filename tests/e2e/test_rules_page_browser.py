"""The "How to play" page in Chromium: rules.js draws both worked examples with the board's
own renderer, on a desktop and on a phone."""

import pytest

from .conftest import SCREENSHOTS

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

# What sticks out to the right of a phone's screen (a table that scrolls in its own box
# may), to name it when the page is too wide.
TOO_WIDE = """width => [...document.querySelectorAll("body *")]
  .filter((e) => e.getBoundingClientRect().right > width && !e.closest(".table-scroll table"))
  .map((e) => `${e.tagName}.${e.className} ${Math.round(e.getBoundingClientRect().right)}`)"""


def open_rules(page, url):
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("response", lambda r: errors.append(f"{r.status} {r.url}") if r.status >= 400 else None)
    page.goto(url + "/rules/")
    page.wait_for_selector('#rules[data-drawn="true"]')
    return errors


def part(page, selector, name):
    page.locator(selector).screenshot(path=str(SCREENSHOTS / f"{name}.png"))


def check_examples(page):
    """Both examples drawn: the round-end arrows for (a), the score tables for (b)."""
    for board in ("choosing", "before", "after", "trick", "final"):
        assert page.locator(f'[data-board="{board}"][data-drawn="true"]').count() == 1, board
    after = page.locator('[data-board="after"]')
    arrows = after.locator(".outcome .arrow")
    assert arrows.count() == 6 and arrows.first.is_visible()
    assert after.locator(".arrow.to-me").count() == 1
    assert after.locator(".arrow.to-opponent").count() == 3
    assert after.locator(".arrow.removed").count() == 2
    tie = after.locator('.outcome[data-reason="tie"] .sums')
    assert (tie.locator(".me").inner_text(), tie.locator(".opponent").inner_text()) == ("4", "4")
    final = page.locator('[data-board="final"]')
    assert final.locator(".score-table").is_visible()
    assert final.locator(".result .total").all_inner_texts() == ["7", "8"]
    assert final.locator(".score-table tfoot td.me").inner_text() == "7"
    # the turn boards show the real controls: grey captains, then a trick card's halves
    assert page.locator('[data-board="choosing"] .captain.grey').count() == 2
    assert page.locator('[data-board="trick"] .trick-card .half').count() == 2


def test_the_examples_are_drawn_on_a_desktop(asgi_server, page, screenshot):
    errors = open_rules(page, asgi_server)
    check_examples(page)
    # the score table's windows open as on the board: a click pins one, Escape closes it
    window = '[data-board="final"] #overview-theirs'
    page.locator('[data-board="final"] [data-trigger="theirs"]').click()
    assert "3, 3, 4" in page.locator(window).inner_text()
    page.mouse.move(0, 0)  # pinned: it stays when the mouse leaves
    page.wait_for_timeout(100)
    assert page.locator(window).is_visible()
    page.keyboard.press("Escape")
    page.wait_for_selector(window, state="hidden")
    # the drawn turn buttons are a picture: they cannot be clicked or focused
    assert page.evaluate("document.querySelector('[data-board=\"trick\"]').inert") is True
    assert errors == []
    screenshot(page, "rules-desktop")
    part(page, "#example-distribution", "rules-a")
    part(page, "#example-scoring", "rules-b")


def test_the_examples_fit_a_phone(asgi_server, browser, screenshot):
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True
    )
    page = context.new_page()
    errors = open_rules(page, asgi_server)
    check_examples(page)
    screenshot(page, "rules-phone")
    part(page, "#example-distribution", "rules-a-phone")
    part(page, "#example-scoring", "rules-b-phone")
    part(page, "#first-game", "rules-first-game-phone")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, page.evaluate(TOO_WIDE, 390)[:20]
    assert errors == []
    context.close()
