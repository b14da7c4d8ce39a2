import pytest

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_home_page_renders_in_chromium(live_server, page, screenshot):
    page.goto(live_server.url + "/")
    assert page.title().startswith("Shanghaien")
    assert page.locator("h1").inner_text() == "Shanghaien"
    page.get_by_role("link", name="Log in").first.click()
    page.wait_for_url("**/accounts/login/")
    assert screenshot(page, "home").stat().st_size > 0


def test_home_page_fits_a_phone(live_server, browser, screenshot):
    context = browser.new_context(viewport={"width": 360, "height": 740}, has_touch=True)
    page = context.new_page()
    page.goto(live_server.url + "/")
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    screenshot(page, "home-phone")
    context.close()
