"""Finding a player and playing them again, in Chromium: A types the start of B's name in
the header's search, finds B, follows B, opens the friends page, sees B online (B has a
page open) and invites B in one step; B sees the invitation. The header's search and the
two new pages on a desktop and a phone, in English and German."""

import re
import time
from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from accounts.follows import do_follow

from .helpers import in_thread, log_in_by_cookie

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

DESKTOP = {"viewport": {"width": 1366, "height": 768}}
PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True}


def test_a_finds_b_by_a_prefix_follows_sees_b_online_and_invites_in_one_step(
    asgi_server, browser, django_user_model, screenshot
):
    alma = django_user_model.objects.create_user("alma", password="x")
    bruno = django_user_model.objects.create_user("Brunhilde", password="x")
    django_user_model.objects.create_user("brunello", password="x")  # another "Brun…"

    b_context = browser.new_context(**DESKTOP)
    log_in_by_cookie(b_context, asgi_server, bruno)
    b_page = b_context.new_page()
    b_page.goto(asgi_server + "/")  # B has a page open
    expect(b_page.locator(".invitation")).to_have_count(0)

    a_context = browser.new_context(**DESKTOP)
    log_in_by_cookie(a_context, asgi_server, alma)
    page = a_context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(asgi_server + "/rules/")
    page.get_by_role("searchbox", name="Find a player by name").fill("bRUN")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert "/players/?q=bRUN" in page.url
    rows = page.locator("table.players tbody tr")
    expect(rows).to_have_count(2)
    expect(rows.nth(0)).to_contain_text("brunello")
    expect(rows.nth(1)).to_contain_text("Brunhilde")
    screenshot(page, "players-found-desktop")

    with page.expect_navigation():
        page.get_by_role("link", name="Brunhilde", exact=True).click()
    with page.expect_navigation():
        page.get_by_role("button", name="Follow Brunhilde").click()
    expect(page.locator(".messages")).to_contain_text("You follow Brunhilde")

    with page.expect_navigation():
        page.locator(".site-header").get_by_role("link", name="Friends").click()
    friend = page.locator("li.friend", has_text="Brunhilde")
    expect(friend).to_have_count(1)
    # B's lobby holds a socket: B is online (the page is read again until the socket is in)
    deadline = time.monotonic() + 10
    while "Online now" not in friend.inner_text() and time.monotonic() < deadline:
        time.sleep(0.2)
        page.reload()
    expect(friend.locator(".presence.online")).to_have_text("Online now")
    screenshot(page, "friends-desktop")

    with page.expect_navigation():
        friend.get_by_role("button", name=re.compile("Invite")).click()
    expect(page.locator(".messages")).to_contain_text("Invitation sent.")

    # the lobby B has open shows it by itself (its socket), no reload
    expect(b_page.locator(".invitation", has_text="alma")).to_contain_text("invites you")
    assert errors == []
    a_context.close()
    b_context.close()


def a_game_waiting_for(me, names):
    """A game against the first of ``names`` that ``me`` begins: the header then shows
    the "Next game" button beside the search, as it mostly will. (Through an invitation,
    who begins is drawn: a few tries in a row could all begin with the friend.)"""
    from django.contrib.auth import get_user_model
    from django.db import transaction

    from games.services import starting

    friend = get_user_model().objects.get(username=names[0])
    with transaction.atomic():
        game = starting.start_game(starting.NewGame(players=[me, friend], starter=0))
    assert game.to_move_id == me.pk
    return game


@pytest.mark.parametrize("language", ["en", "de"])
def test_the_header_search_and_the_pages_on_a_phone_and_a_desktop(
    asgi_server, browser, django_user_model, screenshot, language
):
    me = django_user_model.objects.create_user(f"mira-{language}", password="x")
    seen = timezone.now() - timedelta(hours=3)
    for name in ("Kapitaenin_Wilhelmina", "kai", "Kassandra"):
        friend = django_user_model.objects.get_or_create(username=name)[0]
        django_user_model.objects.filter(pk=friend.pk).update(last_seen_at=seen)
        in_thread(do_follow, me, friend.username)
    in_thread(a_game_waiting_for, me, ["kai", "Kassandra", "Kapitaenin_Wilhelmina"])
    for device, size in ((PHONE, "phone"), (DESKTOP, "desktop")):
        context = browser.new_context(**device, locale="de-DE" if language == "de" else "en-GB")
        log_in_by_cookie(context, asgi_server, me)
        page = context.new_page()
        page.goto(asgi_server + "/")
        search = page.locator(".header-search")
        box = search.bounding_box()
        width = page.viewport_size["width"]
        assert box["x"] >= 0 and box["x"] + box["width"] <= width
        header = page.locator(".site-header").bounding_box()
        screenshot(page, f"header-search-{size}-{language}")
        page.goto(asgi_server + "/players/?q=k")
        expect(page.locator("table.players tbody tr")).to_have_count(3)
        screenshot(page, f"players-{size}-{language}")
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        page.goto(asgi_server + "/friends/")
        expect(page.locator("li.friend")).to_have_count(3)
        screenshot(page, f"friends-{size}-{language}")
        # nothing sticks out sideways
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        print(size, language, "header height", header["height"])
        context.close()
