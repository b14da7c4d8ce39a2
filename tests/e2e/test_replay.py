"""A finished game replayed in Chromium, step by step, to the final score."""

import pytest

from games.models import Game
from games.services import invitations
from tests.helpers.games import play_on

from .helpers import in_thread, log_in_by_cookie

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def step(page) -> int:
    return int(page.get_attribute("#replay", "data-step"))


def test_stepping_through_a_finished_game_to_the_final_score(
    asgi_server, browser, django_user_model, screenshot
):
    anna = django_user_model.objects.create_user("anna", password="x")
    bernd = django_user_model.objects.create_user("bernd", password="x")
    django_user_model.objects.create_user("carl", password="x")
    invitation = in_thread(invitations.do_invite, anna, to="bernd")
    game = in_thread(invitations.do_accept_invitation, invitation.pk, bernd)
    game = in_thread(play_on, game, seed=7)
    assert game.status == Game.Status.FINISHED
    carl = django_user_model.objects.get(username="carl")  # not a player: a spectator

    context = browser.new_context(viewport={"width": 1100, "height": 900})
    log_in_by_cookie(context, asgi_server, carl)
    page = context.new_page()
    page.goto(f"{asgi_server}/games/{game.pk}/replay/")
    page.wait_for_selector(".replay-controls")
    steps = int(page.get_attribute("#replay", "data-steps"))
    assert steps == game.version and step(page) == 1

    forward = page.get_by_role("button", name="One step forward")
    for expected in range(2, 6):
        forward.click()
        assert step(page) == expected
    assert page.locator(".replay-now .what").inner_text()  # the move in words
    page.get_by_role("button", name="One step back").click()
    assert step(page) == 4

    page.get_by_role("button", name="Jump to round 3").click()
    assert page.get_attribute("#replay", "data-round") == "3"
    assert "Round 3 starts" in page.inner_text(".replay-now .what")
    assert page.locator(".replay-timeline li.current").count() == 1
    for _ in range(6):
        forward.click()
    screenshot(page, "replay-in-round-3")

    page.keyboard.press("End")  # the last step: the final score
    assert step(page) == steps
    page.wait_for_selector("#replay .result")
    totals = page.locator("#replay .result .total").all_inner_texts()
    assert [int(t) for t in totals] == [game.score0, game.score1]  # carl sees seat 0's side
    assert "Game over" in page.inner_text(".replay-now")
    assert page.url.endswith(f"#step-{steps}")
    screenshot(page, "replay-final-score")

    page.keyboard.press("Home")
    assert step(page) == 1
    page.goto(f"{asgi_server}/games/{game.pk}/replay/?as=bernd#step-{steps}")
    page.wait_for_selector("#replay .result")
    totals = page.locator("#replay .result .total").all_inner_texts()
    assert [int(t) for t in totals] == [game.score1, game.score0]  # now from bernd's side
    context.close()


def test_a_link_to_a_step_shows_the_board_at_that_step(asgi_server, browser, django_user_model):
    """#step-N also names the move list's line; the page shows the board, not the list."""
    anna = django_user_model.objects.create_user("anna", password="x")
    bernd = django_user_model.objects.create_user("bernd", password="x")
    invitation = in_thread(invitations.do_invite, anna, to="bernd")
    game = in_thread(invitations.do_accept_invitation, invitation.pk, bernd)
    game = in_thread(play_on, game, seed=7)
    context = browser.new_context(viewport={"width": 1100, "height": 700})
    log_in_by_cookie(context, asgi_server, anna)
    page = context.new_page()
    page.goto(f"{asgi_server}/games/{game.pk}/replay/#step-40")
    page.wait_for_selector(".replay-controls")
    assert step(page) == 40
    page.wait_for_function(
        "() => document.getElementById('replay').getBoundingClientRect().top < 5"
    )
    top = page.evaluate("document.getElementById('replay').getBoundingClientRect().top")
    assert -5 < top < 5  # the board at the top of the window
    page.evaluate("location.hash = '#step-90'")  # a link clicked on the page
    page.wait_for_function("() => document.getElementById('replay').dataset.step === '90'")
    top = page.evaluate("document.getElementById('replay').getBoundingClientRect().top")
    assert -5 < top < 5
    context.close()
