"""Presence on the board, live: anna's board says when bernd opens the same game and when
he leaves it; at a desktop's and a phone's size, in English and in German."""

import pytest

from .helpers import log_in_by_cookie, wait_until_live

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

SIZES = {"desktop": (1366, 768), "phone": (390, 844)}


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("language", ["en", "de"])
def test_the_board_shows_the_opponent_arriving_and_leaving(
    asgi_server, browser, players, game, screenshot, size, language
):
    width, height = SIZES[size]
    contexts = []

    def opened(user):
        context = browser.new_context(viewport={"width": width, "height": height}, locale=language)
        context.add_cookies([{"name": "django_language", "value": language, "url": asgi_server}])
        contexts.append(context)
        log_in_by_cookie(context, asgi_server, user)
        page = context.new_page()
        page.goto(f"{asgi_server}/games/{game.pk}/")
        wait_until_live(page)
        return page

    try:
        anna = opened(players["anna"])
        line = anna.locator(".board-head .opponent-presence")
        assert line.get_attribute("data-state") == "none" and line.inner_text() == ""
        tavern_top = anna.locator(".board-play").bounding_box()["y"]
        bernd = opened(players["bernd"])
        anna.wait_for_selector('.opponent-presence[data-state="here"]', timeout=10000)
        here = {"en": "Here, at this game", "de": "Hier, bei dieser Partie"}[language]
        assert line.inner_text() == here
        assert anna.locator(".board-play").bounding_box()["y"] == tavern_top  # nothing moved
        # the words stay inside the head, beside the names, not over the tavern
        box, head = line.bounding_box(), anna.locator(".board-head").bounding_box()
        assert box["y"] + box["height"] <= head["y"] + head["height"] + 1
        assert box["x"] + box["width"] <= width
        screenshot(anna, f"presence-here-{size}-{language}")
        # bernd's own board says anna is here too (she was, as his page was made)
        assert bernd.locator('.opponent-presence[data-state="here"]').count() == 1
        bernd.context.close()
        anna.wait_for_selector('.opponent-presence[data-state="seen"]', timeout=10000)
        seen = {"en": "Last seen just now", "de": "Gerade eben gesehen"}[language]
        assert line.inner_text() == seen
        assert anna.locator(".board-play").bounding_box()["y"] == tavern_top
        screenshot(anna, f"presence-gone-{size}-{language}")
    finally:
        for context in contexts:
            context.close()
