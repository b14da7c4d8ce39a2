"""A small tournament in Chromium: four players sign up on its page, its maker starts it
with the button, the open page shows the draw and each change without a reload (the
lobby socket's ``watch``), the semi-finals' games end, the final starts by itself, and
the winner is shown. Screenshots at 1366×768 in English and 390×844 in German."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from django.utils import timezone

from accounts.models import User
from tournaments.models import Tournament
from tournaments.services import entries

from ..tournaments.conftest import active_games
from .helpers import in_thread, log_in_by_cookie

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

WIDE = {"viewport": {"width": 1366, "height": 768}}
PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True}
WORDS = {
    "en": {"won": "won the tournament", "final": "Final", "semis": "Semi-finals"},
    "de": {"won": "hat das Turnier gewonnen", "final": "Finale", "semis": "Halbfinale"},
}


def a_cup(language: str):
    """The maker and four players (the first rated highest), and their open cup."""
    maker = User.objects.create_user("maker", password="x", language=language)
    players = [
        User.objects.create_user(name, password="x", language=language)
        for name in ("anna", "bernd", "carl", "dora")
    ]
    from ratings.models import PlayerRating

    for i, player in enumerate(players):
        PlayerRating.objects.create(user=player, rating=1800 - 50 * i, games=5)
    cup = entries.do_create(
        maker,
        name="Harbour cup",
        format="knockout",
        signup_deadline=timezone.now() + dt.timedelta(hours=2),
        min_players=4,
        max_players=4,
    )
    return maker, players, cup


def resigning(tournament_id: int) -> list[tuple[int, int, str]]:
    """Each game of the stage under way: its id, its version, and who gives it up (the
    lower seed)."""
    tournament = Tournament.objects.get(pk=tournament_id)
    return [
        (mg.game_id, mg.game.version, (a if a.seed > b.seed else b).user.username)
        for mg in active_games(tournament, tournament.stage)
        for a, b in [(mg.match.entry_a, mg.match.entry_b)]
    ]


def end_the_stage(pages: dict, base_url: str, tournament_id: int) -> int:
    """Every game under way ends, the better seed winning: the other resigns through the
    API in their own browser, so that the server ends the games and tells the open pages
    (what the test process does reaches no page without a shared channel layer). How many
    ended."""
    games = in_thread(resigning, tournament_id)
    for game_id, version, loser in games:
        context = pages[loser].context
        csrf = next(c["value"] for c in context.cookies() if c["name"] == "csrftoken")
        answer = context.request.post(
            f"{base_url}/api/games/{game_id}/commands/",
            data=json.dumps(
                {
                    "command": {"type": "resign"},
                    "expected_version": version,
                    "client_id": f"resign-{game_id}",
                }
            ),
            headers={"Content-Type": "application/json", "X-CSRFToken": csrf},
        )
        assert answer.status == 200, answer.text()
    return len(games)


@pytest.mark.parametrize(
    ("language", "device"), [("en", WIDE), ("de", PHONE)], ids=["en-wide", "de-phone"]
)
def test_a_small_tournament_from_sign_up_to_its_winner(
    asgi_server, browser, screenshot, language, device
):
    maker, players, cup = in_thread(a_cup, language)
    url = f"{asgi_server}/tournaments/{cup.pk}/"
    tag = f"{language}-{device['viewport']['width']}"
    words = WORDS[language]
    errors = []
    pages = {}
    for user in [maker, *players]:
        context = browser.new_context(**device)
        log_in_by_cookie(context, asgi_server, user)
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(url)
        pages[user.username] = page

    # each player signs up with the page's button; the list of entrants grows
    for player in players:
        page = pages[player.username]
        with page.expect_navigation():
            page.locator(f'form[action="/tournaments/{cup.pk}/join/"] button').click()
        assert page.locator(f'form[action="/tournaments/{cup.pk}/leave/"]').count() == 1
    watching = pages["anna"]
    watching.reload()
    assert watching.locator(".entrants li").count() == 4
    screenshot(watching, f"tournament-signup-{tag}")

    # the maker starts it: anna's open page shows the draw by itself
    maker_page = pages["maker"]
    maker_page.reload()
    with maker_page.expect_navigation():
        maker_page.locator(f'form[action="/tournaments/{cup.pk}/start/"] button').click()
    watching.wait_for_selector(".bracket-match", timeout=15000)
    assert watching.locator(".bracket-match").count() == 2
    assert words["semis"] in watching.locator(".bracket").inner_text()
    games = watching.locator(".bracket-match .games a")
    assert games.count() == 4  # two games a match
    screenshot(watching, f"tournament-running-{tag}")

    # the semi-finals' games end; the final starts by itself and the page shows it
    assert end_the_stage(pages, asgi_server, cup.pk) == 4
    final = ".bracket-round:nth-child(2) .bracket-match .games a"
    watching.wait_for_selector(final, timeout=20000)
    assert words["final"] in watching.locator(".bracket-round").nth(1).inner_text()
    assert in_thread(lambda: Tournament.objects.get(pk=cup.pk).stage) == 2
    screenshot(watching, f"tournament-final-{tag}")

    # the final ends: the winner, and the final places
    assert end_the_stage(pages, asgi_server, cup.pk) == 2
    watching.wait_for_selector(".winner", timeout=20000)
    assert words["won"] in watching.locator(".winner").inner_text()
    assert "anna" in watching.locator(".winner").inner_text()  # the top seed
    assert watching.locator(".places li").count() >= 2
    path = screenshot(watching, f"tournament-winner-{tag}")
    watching.screenshot(path=str(path).replace(".png", "-screen.png"))  # as the screen shows it
    for page in pages.values():
        page.context.close()
    assert errors == []


def test_the_form_makes_a_tournament_with_a_time_bank(
    asgi_server, browser, django_user_model, screenshot
):
    """The tournament form's clock is the lobby's: "Time bank" shows its three terms and
    hides days per move; the tournament's page gives the terms in the lobby's words."""
    maker = in_thread(lambda: django_user_model.objects.create_user("maker", password="x"))
    context = browser.new_context(**WIDE)
    log_in_by_cookie(context, asgi_server, maker)
    page = context.new_page()
    page.goto(asgi_server + "/tournaments/new/")
    assert page.locator("#id_bank_start").is_hidden()  # days per move, the default
    assert page.locator("#id_days_per_move").is_visible()
    page.check("input[name=clock][value=bank]")
    assert page.locator("#id_bank_start").is_visible()
    assert page.locator("#id_days_per_move").is_hidden()
    page.fill("#id_name", "Bank cup")
    page.select_option("#id_bank_start", "48")
    page.select_option("#id_bank_increment", "12")
    page.select_option("#id_bank_cap", "120")
    screenshot(page, "tournament-form-bank-en-1366")
    with page.expect_navigation():
        page.click(".tournament-form button[type=submit]")
    cup = in_thread(lambda: Tournament.objects.get(name="Bank cup"))
    assert (cup.bank_start_hours, cup.bank_increment_hours, cup.bank_cap_hours) == (48, 12, 120)
    assert "Time bank 2 days, +12 hours a move, at most 5 days" in page.inner_text("main")
    context.close()
