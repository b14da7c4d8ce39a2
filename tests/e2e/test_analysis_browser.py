"""The analysis after the game in Chromium: the replay of a finished game says it is being
prepared, shows the chart once the worker has made it (without a reload), and each
costly decision links to the board at its step."""

import re

import pytest

from games import jobs
from games.models import Game, GameAnalysis
from games.services import invitations
from tests.helpers.games import play_on

from .helpers import in_thread, log_in_by_cookie
from .test_accessibility import AXE, BLOCKING, audit, describe

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def analyse_all() -> None:
    while jobs.analyse_games():
        pass


def test_the_replay_shows_the_analysis_once_it_is_ready(
    asgi_server, browser, django_user_model, screenshot
):
    anna = django_user_model.objects.create_user("anna", password="x")
    bernd = django_user_model.objects.create_user("bernd", password="x")
    carl = django_user_model.objects.create_user("carl", password="x")
    invitation = in_thread(invitations.do_invite, anna, to="bernd")
    game = in_thread(invitations.do_accept_invitation, invitation.pk, bernd)
    game = in_thread(play_on, game, seed=7)
    assert game.status == Game.Status.FINISHED

    context = browser.new_context(viewport={"width": 1100, "height": 900})
    log_in_by_cookie(context, asgi_server, carl)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda m: m.type == "error" and errors.append(m.text))  # CSP refusals
    page.goto(f"{asgi_server}/games/{game.pk}/replay/?as=bernd")
    page.wait_for_selector(".replay-controls")
    section = page.locator("#analysis")
    assert section.get_attribute("data-state") == "pending"
    assert "The analysis is being prepared" in section.inner_text()

    in_thread(analyse_all)  # the worker's job, until the game is done
    page.wait_for_selector("#analysis[data-state=ready] svg.analysis-chart", timeout=20_000)
    chart = page.locator("svg.analysis-chart")
    box = chart.bounding_box()
    assert box["width"] > 500 and box["height"] > 150
    for side in ("me", "opponent"):
        line = page.locator(f"svg.analysis-chart polyline.line.{side}")
        assert len(line.get_attribute("points").split()) > 50
        assert line.bounding_box()["width"] > 400  # drawn across the game
    # red is the side the replay is seen from (bernd's), blue the other
    red = page.evaluate("getComputedStyle(document.querySelector('polyline.line.me')).stroke")
    blue = page.evaluate(
        "getComputedStyle(document.querySelector('polyline.line.opponent')).stroke"
    )
    assert (red, blue) == ("rgb(192, 57, 43)", "rgb(31, 95, 168)")
    assert "bernd in red, anna in blue" in page.text_content("#analysis-chart-desc")

    costly = page.locator("#analysis ol.costly li")
    assert costly.count() >= 1
    assert "The admiral would have played" in costly.first.inner_text()
    assert re.search(r"\d+ points? lost \(±\s\d+\)\.", costly.first.inner_text())
    assert "95% interval" in section.locator(".analysis-about").inner_text()
    assert page.locator("svg.analysis-chart circle.mark").count() == costly.count()
    shot = screenshot(page, "analysis-replay-page")
    section.screenshot(path=str(shot.with_name("analysis-chart.png")))

    worst = GameAnalysis.objects.get(game=game).decisions
    sure = (d for d in worst if d["loss"] >= 0.05 and d["loss"] > d["margin"])
    first = sorted(sure, key=lambda d: -d["loss"])[:5]
    step = min(d["step"] for d in first)
    costly.first.locator("a").click()  # the board at that decision
    page.wait_for_function(f"() => document.getElementById('replay').dataset.step === '{step}'")

    page.set_viewport_size({"width": 360, "height": 780})  # a phone: no sideways scrolling
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    section.screenshot(path=str(shot.with_name("analysis-chart-phone.png")))
    assert errors == []
    context.close()

    # the section in English and German, on a laptop and on a phone, to look at
    for language, heading in (("en", "The admiral’s analysis"), ("de", "Die Analyse des Admirals")):
        carl.language = language
        in_thread(carl.save, update_fields=["language"])
        for width, height in ((1366, 768), (390, 844)):
            context = browser.new_context(viewport={"width": width, "height": height})
            log_in_by_cookie(context, asgi_server, carl)
            page = context.new_page()
            page.goto(f"{asgi_server}/games/{game.pk}/replay/?as=bernd")
            page.wait_for_selector("#analysis[data-state=ready] svg.analysis-chart")
            page.locator("#replay[data-step]").wait_for()  # the steps above it drawn
            section = page.locator("#analysis")
            assert section.locator("h2").inner_text() == heading
            assert "±" in section.locator("ol.costly").inner_text()
            assert page.evaluate("document.documentElement.scrollWidth") <= width
            name = f"analysis-section-{language}-{width}x{height}.png"
            section.screenshot(path=str(shot.with_name(name)))
            context.close()

    if not AXE.is_file():  # (test_accessibility.py insists on it in CI)
        return
    found = {}
    for name, width, height in (("desktop", 1280, 900), ("phone", 390, 844)):
        # axe is injected as an inline script: only this audit lets the page run it
        viewport = {"width": width, "height": height}
        context = browser.new_context(viewport=viewport, bypass_csp=True)
        log_in_by_cookie(context, asgi_server, carl)
        page = context.new_page()
        page.goto(f"{asgi_server}/games/{game.pk}/replay/")
        page.wait_for_selector(".replay-controls")
        page.locator("#analysis details summary").click()  # the table shown too
        found[f"analysis, {name}"] = audit(page, AXE)
        context.close()
    blocking = {k: [v for v in vs if v["impact"] in BLOCKING] for k, vs in found.items()}
    assert not any(blocking.values()), describe(blocking)
