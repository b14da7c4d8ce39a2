"""Sign up, invite, accept and play whole games through the JSON API."""

import pytest
from django.test import Client

from games.models import Event, Game

from ..helpers.games import play_to_the_end, post

pytestmark = pytest.mark.django_db


def signed_up(username):
    client = Client()
    response = client.post(
        "/accounts/signup/",
        {
            "username": username,
            "email": f"{username}@example.org",
            "password1": "tavern-dice-42",
            "password2": "tavern-dice-42",
        },
    )
    assert response.status_code == 302, response.content
    response = client.post("/accounts/login/", {"login": username, "password": "tavern-dice-42"})
    assert response.status_code == 302, response.content
    return client


@pytest.mark.parametrize("extra_wild", [False, True])
def test_two_new_players_play_a_whole_game(extra_wild):
    anna, bernd = signed_up("anna"), signed_up("bernd")
    response = post(
        anna,
        "/api/invitations/",
        {"to": "Bernd", "extra_wild": extra_wild, "days_per_move": 2, "message": "Ahoy!"},
    )
    assert response.status_code == 201, response.content
    invitation = response.json()
    assert invitation["to"] == "bernd" and invitation["extra_wild"] is extra_wild
    assert bernd.get("/api/invitations/").json()["received"][0]["id"] == invitation["id"]

    response = post(bernd, f"/api/invitations/{invitation['id']}/accept/")
    assert response.status_code == 201
    game_id = response.json()["game"]
    assert anna.get("/api/games/").json()["games"][0]["id"] == game_id

    final = play_to_the_end({"anna": anna, "bernd": bernd}, game_id, seed=int(extra_wild))

    a, b = final["anna"]["view"], final["bernd"]["view"]
    assert a["result"]["me"] == b["result"]["opponent"]
    assert a["result"]["reason"] == "completed"
    winner = {"me": "anna", "opponent": "bernd", None: None}[a["result"]["winner"]]
    game = Game.objects.get(pk=game_id)
    assert game.status == "finished"
    assert (game.winner.username if game.winner else None) == winner
    assert game.version == Event.objects.filter(game=game).count()
    assert a["extra_wild"] is extra_wild
    listed = anna.get("/api/games/?status=finished").json()["games"]
    assert listed[0]["id"] == game_id and listed[0]["result"]["me"] == a["result"]["me"]["total"]
