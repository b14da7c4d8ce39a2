"""Choosing a rated or a casual game: the API, the lobby form, a rematch."""

import re

import pytest

from games.models import Game, Invitation

from ..helpers.games import command_body, post

pytestmark = pytest.mark.django_db


def accept(clients, invitation_id):
    response = post(clients["bernd"], f"/api/invitations/{invitation_id}/accept/")
    assert response.status_code == 201
    return Game.objects.get(pk=response.json()["game"])


def test_the_api_makes_rated_games_unless_told_otherwise(clients):
    rated = post(clients["anna"], "/api/invitations/", {"to": "bernd"})
    assert rated.status_code == 201 and rated.json()["rated"] is True
    assert accept(clients, rated.json()["id"]).rated is True
    casual = post(clients["anna"], "/api/invitations/", {"to": "bernd", "rated": False})
    assert casual.status_code == 201 and casual.json()["rated"] is False
    game = accept(clients, casual.json()["id"])
    assert game.rated is False
    summary = clients["anna"].get("/api/games/").json()["games"]
    assert {g["id"]: g["rated"] for g in summary}[game.pk] is False
    listed = clients["bernd"].get("/api/invitations/").json()
    assert {k: listed[k] for k in ("received", "sent", "open")} == {
        "received": [],
        "sent": [],
        "open": [],
    }


@pytest.mark.parametrize("value", ["yes", 1, 0, None, "false", [True]])
def test_rated_must_be_true_or_false(clients, value):
    response = post(clients["anna"], "/api/invitations/", {"to": "bernd", "rated": value})
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "bad_rated"
    assert "rated" in response.json()["error"]["message"]
    assert not Invitation.objects.exists()


def test_the_lobby_form_has_a_rated_box_ticked_by_default(clients):
    page = clients["anna"].get("/").content.decode()
    assert 'name="rated"' in page and "Rated game" in page
    assert re.search(r'<input type="checkbox" name="rated"[^>]* checked>', page)
    clients["anna"].post("/invitations/new/", {"to": "bernd", "days_per_move": 3, "rated": "on"})
    clients["anna"].post("/invitations/new/", {"to": "bernd", "days_per_move": 3})  # unticked
    sent = list(Invitation.objects.order_by("pk").values_list("rated", flat=True))
    assert sent == [True, False]
    lobby = clients["bernd"].get("/").content.decode()
    assert "3 days per move, rated)" in lobby and "3 days per move, casual)" in lobby


def test_the_lobby_tells_rated_and_casual_games_apart(clients):
    casual = post(clients["anna"], "/api/invitations/", {"to": "bernd", "rated": False})
    accept(clients, casual.json()["id"])
    lobby = clients["anna"].get("/").content.decode()
    assert ">casual</span>" in lobby and ">rated</span>" not in lobby


@pytest.mark.parametrize("rated", [True, False])
def test_a_rematch_keeps_rated_or_casual(clients, rated):
    invitation = post(clients["anna"], "/api/invitations/", {"to": "bernd", "rated": rated})
    game = accept(clients, invitation.json()["id"])
    resign = command_body({"type": "resign"}, game.version)
    assert post(clients["anna"], f"/api/games/{game.pk}/commands/", resign).status_code == 200
    offer = post(clients["anna"], f"/api/games/{game.pk}/rematch/")
    assert offer.status_code == 201 and offer.json()["rated"] is rated
    assert accept(clients, offer.json()["id"]).rated is rated
