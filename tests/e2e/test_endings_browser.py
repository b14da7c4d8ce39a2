"""Games that ended without play, in Chromium: an annulled board says the moderator's
reason, an aborted one says so, and neither shows a score table; the finished games list
keeps both; the lobby of a player with nothing under way sends them there."""

import pytest

from games.models import Game
from games.services import commands, invitations
from tests.helpers.games import abort_as_before, play_on

from .helpers import in_thread, log_in_by_cookie, wait_until_live

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

REASON = "Both accounts belong to one person."


@pytest.fixture
def people(django_user_model):
    from django.contrib.auth.models import Group

    from moderation.roles import MODERATORS

    anna = django_user_model.objects.create_user("anna", password="x")
    bernd = django_user_model.objects.create_user("bernd", password="x")
    mia = django_user_model.objects.create_user("mia", password="x", is_staff=True)
    mia.groups.add(Group.objects.get(name=MODERATORS))
    return anna, bernd, django_user_model.objects.get(pk=mia.pk)


def new_game(anna, bernd) -> Game:
    invitation = in_thread(invitations.do_invite, anna, to="bernd")
    return in_thread(invitations.do_accept_invitation, invitation.pk, bernd)


def annul(game, moderator, reason=REASON):
    from moderation.services import do_annul

    return in_thread(do_annul, game.pk, moderator, reason)


def abort(game, players):
    """Aborted games stay from before the rule that a dealt game cannot be called off."""
    return in_thread(abort_as_before, game)


def open_board(page, base_url, game):
    page.goto(f"{base_url}/games/{game.pk}/")
    page.wait_for_selector('#board[data-status="finished"]')
    wait_until_live(page)
    return page.inner_text("#board .status")


def test_annulled_and_aborted_boards_tell_how_the_game_ended_without_a_score_table(
    asgi_server, browser, people, screenshot
):
    anna, bernd, mia = people
    annulled = new_game(anna, bernd)
    annul(annulled, mia)
    aborted = new_game(anna, bernd)
    abort(aborted, (anna, bernd))
    resigned = in_thread(play_on, new_game(anna, bernd), seed=4, until_version=40)
    in_thread(commands.do_command, resigned.pk, bernd, {"type": "resign"}, resigned.version, "r")

    context = browser.new_context(viewport={"width": 1100, "height": 800})
    errors = []
    log_in_by_cookie(context, asgi_server, anna)
    page = context.new_page()
    page.on("pageerror", lambda error: errors.append(str(error)))

    status = open_board(page, asgi_server, annulled)
    assert f"Game annulled by a moderator: {REASON}" in status
    assert page.locator("#board .score-table").count() == 0
    assert page.locator("#board .result").count() == 0
    assert "0 : 0" not in page.inner_text("#board")
    screenshot(page, "ended-annulled-board")

    status = open_board(page, asgi_server, aborted)
    assert "Game aborted: no result." in status and "()" not in status
    assert page.locator("#board .score-table").count() == 0
    assert page.locator("#board .result").count() == 0
    screenshot(page, "ended-aborted-board")

    # the replay's last step: the ending in words, and no table to add up
    page.goto(f"{asgi_server}/games/{annulled.pk}/replay/")
    page.wait_for_selector(".replay-controls")
    page.keyboard.press("End")
    page.wait_for_selector('#replay[data-status="finished"]')
    now = page.inner_text(".replay-now")
    assert f"A moderator annulled the game: {REASON}" in now
    assert "Game annulled by a moderator" in now
    assert page.locator("#replay .score-table").count() == 0
    assert page.locator("#replay .result").count() == 0
    screenshot(page, "ended-annulled-replay")

    # both stay in the finished games list, each told in its sentence
    page.goto(f"{asgi_server}/games/finished/")
    rows = page.locator("tr.ended").all_inner_texts()
    assert any(f"Game annulled by a moderator: {REASON}" in r for r in rows)
    assert any("Game aborted: no result." in r for r in rows)
    assert any("Won" in r and "Game over: You won (by resignation), " in r for r in rows)
    assert not any("()" in r or "(resignation)" in r for r in rows)
    screenshot(page, "ended-finished-list")

    # nothing under way: the lobby sends anna to her finished games
    page.goto(f"{asgi_server}/")
    assert "No games yet" not in page.inner_text("main")
    with page.expect_navigation():
        page.get_by_role("link", name="your finished games").click()
    assert page.url.endswith("/games/finished/")
    page.goto(f"{asgi_server}/")
    screenshot(page, "ended-lobby-nothing-under-way")
    assert errors == []
    context.close()


def test_a_game_annulled_in_play_keeps_its_score_table_but_no_final_score(
    asgi_server, browser, people, screenshot
):
    anna, bernd, mia = people
    game = new_game(anna, bernd)
    in_thread(play_on, game, seed=4, until_version=40)
    annul(game, mia, "Abandoned after a quarrel")
    game.refresh_from_db()
    assert game.status == Game.Status.ANNULLED and (game.score0 or game.score1)

    context = browser.new_context(viewport={"width": 1100, "height": 900})
    log_in_by_cookie(context, asgi_server, bernd)
    page = context.new_page()
    status = open_board(page, asgi_server, game)
    assert "Game annulled by a moderator: Abandoned after a quarrel." in status
    assert page.locator("#board .score-table").count() == 1  # cards were won: what stood
    assert page.locator("#board .result").count() == 0  # but no result to add up
    screenshot(page, "ended-annulled-in-play-board")
    context.close()
