import json

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from games.models import Game, Invitation
from games.services import commands, invitations

from ..helpers.games import on_turn

pytestmark = pytest.mark.django_db


def test_the_lobby_lists_games_with_your_turn_first(players, clients):
    anna, bernd, carl = players["anna"], players["bernd"], players["carl"]
    games = [
        invitations.do_accept_invitation(invitations.do_invite(anna, to=o).pk, players[o])
        for o in ("bernd", "carl")
    ]
    response = clients["anna"].get("/")
    listed = response.context["games"]
    waiting = [g["id"] for g in listed if g["your_turn"]]
    assert [g["id"] for g in listed][: len(waiting)] == waiting
    assert {g["id"] for g in listed} == {g.pk for g in games}
    assert "Invite someone" in response.content.decode()
    assert bernd and carl


def test_inviting_and_accepting_through_the_pages(clients, players):
    response = clients["anna"].post(
        "/invitations/new/", {"to": "bernd", "days_per_move": "5", "extra_wild": "on"}
    )
    assert response.status_code == 302
    invitation = Invitation.objects.get()
    assert invitation.extra_wild and invitation.days_per_move == 5
    page = clients["bernd"].get("/").content.decode()
    assert "anna</strong> invites you" in page
    response = clients["bernd"].post(f"/invitations/{invitation.pk}/accept/")
    game = Game.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/games/{game.pk}/"
    assert clients["carl"].post(f"/invitations/{invitation.pk}/accept/").status_code == 302
    assert clients["anna"].post(f"/invitations/{invitation.pk}/steal/").status_code == 404


def test_a_bad_invitation_form_explains_itself(clients):
    response = clients["anna"].post(
        "/invitations/new/", {"to": "nobody", "days_per_move": "3"}, follow=True
    )
    assert "There is no player called" in response.content.decode()
    assert not Invitation.objects.exists()


def test_the_game_page_offers_the_legal_moves_and_plays_them(game, clients):
    name, client, other = on_turn(game, clients)
    page = client.get(f"/games/{game.pk}/")
    assert page.status_code == 200
    assert [json.loads(c["json"]) for c in page.context["choices"]] == [{"type": "roll"}]
    response = client.post(
        f"/games/{game.pk}/play/",
        {"command": '{"type": "roll"}', "expected_version": game.version, "client_id": "p1"},
    )
    assert response.status_code == 302
    game.refresh_from_db()
    assert game.version == 3
    assert clients[other].get(f"/games/{game.pk}/").context["choices"] == []


def test_a_refused_move_on_the_page_shows_its_message(game, clients):
    _, client, _ = on_turn(game, clients)
    response = client.post(
        f"/games/{game.pk}/play/",
        {"command": '{"type": "roll"}', "expected_version": 1, "client_id": "p2"},
        follow=True,
    )
    assert "The game is at version 2" in response.content.decode()
    response = client.post(
        f"/games/{game.pk}/play/",
        {"command": "{oops", "expected_version": "x", "client_id": "p3"},
        follow=True,
    )
    assert "could not be read" in response.content.decode()


def test_the_game_page_needs_a_login_and_404s_for_unknown_games(client, clients):
    assert client.get("/games/1/").status_code == 302
    assert clients["anna"].get("/games/999/").status_code == 404


def test_finished_games_are_listed(game, players, clients):
    commands.do_command(game.pk, players["anna"], {"type": "resign"}, game.version, "x")
    page = clients["bernd"].get("/games/finished/")
    assert [g["id"] for g in page.context["games"]] == [game.pk]
    html = page.content.decode()
    assert "Won" in html and ">rated</span>" in html and ">casual</span>" not in html


def test_the_page_title_counts_the_games_waiting_for_you(game, clients):
    name, client, other = on_turn(game, clients)
    with CaptureQueriesContext(connection) as queries:
        lobby = client.get("/").content.decode()
    assert "<title>(1) Your turn · Lobby — Shanghaien</title>" in lobby
    counts = [q["sql"] for q in queries.captured_queries if q["sql"].startswith("SELECT COUNT")]
    assert len(counts) == 1  # the title reads the count twice, the page asks once
    assert "<title>Lobby — Shanghaien</title>" in clients[other].get("/").content.decode()
    page = client.get(f"/games/{game.pk}/").content.decode()
    assert f'data-game-id="{game.pk}"' in page and 'src="/static/js/live.js"' in page


@pytest.mark.parametrize(
    "body, content_type",
    [
        ("&".join(["f=x"] * 1001), "application/x-www-form-urlencoded"),
        ("to=bernd", "application/x-www-form-urlencoded; charset=latin-1"),
        ("to=bernd", "multipart/form-data"),
    ],
)
@pytest.mark.parametrize("path", ["/invitations/new/", "/no/such/page/"])
def test_a_form_body_that_cannot_be_read_is_refused_with_400(players, path, body, content_type):
    """With the CSRF cookie, Django's check reads the form, and reads it again on the error
    page: a body it cannot read must be refused before, not fail the error page too."""
    client = Client(enforce_csrf_checks=True)
    client.force_login(players["anna"])
    client.get("/")  # sets the CSRF cookie
    token = client.cookies["csrftoken"].value
    response = client.post(path, body, content_type=content_type, HTTP_X_CSRFTOKEN=token)
    assert response.status_code == 400
    assert not Invitation.objects.exists()
