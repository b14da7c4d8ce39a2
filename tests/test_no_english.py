"""No English left on a German page: every page and the board, rendered for a German
reader, compared against the English texts of the catalogue."""

import html
import re

import pytest
from django.test import Client

from games.services import commands

from .helpers.games import play_on
from .helpers.i18n import english_in

pytestmark = pytest.mark.django_db


def visible_text(response) -> str:
    """The page's text as a reader gets it: tags dropped, entities decoded; the JSON of
    the board's words and state stays, since the board shows it."""
    body = response.content.decode()
    return html.unescape(re.sub(r"<[^>]+>", " ", body))


@pytest.fixture
def german(players, game):
    """anna, a German player, with a game under way and one finished."""
    anna = players["anna"]
    anna.language = "de"
    anna.save()
    client = Client(HTTP_ACCEPT_LANGUAGE="de")
    client.force_login(anna)
    play_on(game, seed=3, until_version=12)
    game.refresh_from_db()
    from games.services import invitations

    done = invitations.do_accept_invitation(
        invitations.do_invite(players["bernd"], to="anna").pk, anna
    )
    commands.do_command(done.pk, players["bernd"], {"type": "resign"}, done.version, "r")
    return client, game, done


VISITOR_PAGES = [
    "/",
    "/accounts/login/",
    "/accounts/signup/",
    "/accounts/password/reset/",
    "/ranking/",
    "/users/anna/",
    "/rules/",
]


def test_no_english_on_the_pages_a_german_visitor_sees(players):
    visitor = Client(HTTP_ACCEPT_LANGUAGE="de-DE,de;q=0.9")
    for path in VISITOR_PAGES:
        response = visitor.get(path)
        assert response.status_code == 200, path
        assert english_in(visible_text(response), "de") == [], path


def test_no_english_on_the_pages_and_the_board_a_german_player_sees(german):
    client, game, done = german
    pages = [
        "/",
        "/games/finished/",
        "/users/anna/",
        f"/games/{game.pk}/",
        f"/games/{done.pk}/",
        f"/games/{done.pk}/replay/",
        "/accounts/email/",
        "/accounts/password/change/",
        "/accounts/2fa/",
    ]
    for path in pages:
        response = client.get(path)
        assert response.status_code == 200, path
        assert english_in(visible_text(response), "de") == [], path


def test_the_check_finds_english_where_there_is_some(players):
    """The same check on the English page finds plenty: it can fail."""
    response = Client(HTTP_ACCEPT_LANGUAGE="en").get("/accounts/signup/")
    assert len(english_in(visible_text(response), "de")) >= 3
