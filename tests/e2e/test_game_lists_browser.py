"""A player's list of games in the browser: the filters (a GET form, no script needed)
narrow it by opponent and result, the older page follows with the filters kept; the
live page lists a game two others are playing and its watch link opens the board; the
profile shows the records. Screenshots at a laptop's and a phone's size, in English and
German."""

import dataclasses
from datetime import timedelta

import pytest
from django.db import transaction
from django.utils import timezone

from games.access import access_game
from games.services import invitations, limits
from games.services.endings import end_by_server

from .helpers import in_thread, log_in_by_cookie, wait_until_live

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

LAPTOP = {"viewport": {"width": 1366, "height": 768}}
PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True}
LOCALES = {"en": "en-GB", "de": "de-DE"}


def new_game(inviter, guest):
    invitation = invitations.do_invite(inviter, to=guest.username)
    return invitations.do_accept_invitation(invitation.pk, guest)


def history(anna, bernd, carl):
    """anna: 30 games won and 5 lost against bernd, 20 won against carl (55: two pages);
    bernd and carl play a game now."""
    at = timezone.now() - timedelta(days=40)
    for n, (other, winner) in enumerate([(bernd, 0)] * 30 + [(bernd, 1)] * 5 + [(carl, 0)] * 20):
        game = new_game(anna, other)
        with transaction.atomic():
            locked = access_game(None, game.pk, lock=True).game
            end_by_server(locked, "adjudicated", winner, at + timedelta(hours=n))
    return new_game(bernd, carl)


@pytest.fixture
def unlimited(monkeypatch):
    for name in ("INVITATIONS_PER_HOUR", "INVITATIONS_TO_ONE_PER_DAY"):
        limit = getattr(limits, name)
        monkeypatch.setattr(limits, name, dataclasses.replace(limit, count=10**6))


def rows(page) -> list[str]:
    return page.locator("table.games-list tbody tr").all_inner_texts()


def test_the_filters_narrow_the_list_pages_move_on_and_live_games_are_watched(
    asgi_server, browser, django_user_model, unlimited, screenshot
):
    anna, bernd, carl = (
        django_user_model.objects.create_user(name, password="x")
        for name in ("anna", "bernd", "carl")
    )
    playing = in_thread(history, anna, bernd, carl)

    context = browser.new_context(**LAPTOP, locale="en-GB")
    log_in_by_cookie(context, asgi_server, anna)
    page = context.new_page()
    page.goto(asgi_server + "/")
    with page.expect_navigation():
        page.get_by_role("link", name="My games").click()
    assert len(rows(page)) == 50  # a full page of the 55 games over
    with page.expect_navigation():
        page.get_by_role("link", name="Older games").click()
    assert len(rows(page)) == 5  # the page after it: the oldest five
    assert page.get_by_role("link", name="Older games").count() == 0

    page.get_by_label("Opponent").fill("bernd")
    with page.expect_navigation():
        page.get_by_role("button", name="Show").click()
    assert len(rows(page)) == 35 and all("bernd" in r for r in rows(page))
    page.get_by_label("Result").select_option("lost")
    with page.expect_navigation():
        page.get_by_role("button", name="Show").click()
    lost = rows(page)
    assert len(lost) == 5 and all("bernd" in r and "Lost" in r for r in lost)
    assert "opponent=bernd" in page.url and "result=lost" in page.url
    assert page.get_by_label("Opponent").input_value() == "bernd"  # the form keeps them

    page.get_by_label("Opponent").fill("carl")
    page.get_by_label("Result").select_option("won")
    with page.expect_navigation():
        page.get_by_role("button", name="Show").click()
    assert len(rows(page)) == 20 and all("carl" in r and "Won" in r for r in rows(page))

    page.goto(asgi_server + "/")
    with page.expect_navigation():
        page.get_by_role("link", name="Watch live games").click()
    live = page.locator("table.live-list tbody tr")
    assert live.count() == 1
    assert "bernd" in live.first.inner_text() and "carl" in live.first.inner_text()
    with page.expect_navigation():
        page.get_by_role("link", name=f"Watch game {playing.pk}").click()
    wait_until_live(page)
    assert page.url.endswith(f"/games/{playing.pk}/")
    assert "you are watching" in page.inner_text("#board")
    context.close()

    # the pages as they look, in English and German, on a laptop and a phone
    for language, locale in LOCALES.items():
        for size, device in (("1366", LAPTOP), ("390", PHONE)):
            context = browser.new_context(**device, locale=locale)
            log_in_by_cookie(context, asgi_server, anna)
            page = context.new_page()
            for name, path in (
                ("list", "/games/?opponent=bernd&result=lost"),
                ("live", "/live/"),
                ("profile", "/users/anna/"),
            ):
                page.goto(asgi_server + path)
                screenshot(page, f"lists-{name}-{language}-{size}")
                width = page.evaluate("document.documentElement.scrollWidth")
                assert width <= device["viewport"]["width"], (name, language, size, width)
            context.close()
