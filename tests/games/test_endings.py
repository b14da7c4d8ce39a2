"""Resign, abort and rematch through the API."""

import pytest

from games.models import Game, Invitation

from ..helpers.games import command_body, on_turn, post

pytestmark = pytest.mark.django_db


def command(client, game, cmd):
    game.refresh_from_db()
    return post(client, f"/api/games/{game.pk}/commands/", command_body(cmd, game.version))


def test_abort_is_allowed_until_both_players_have_moved(game, clients):
    name, client, other = on_turn(game, clients)
    assert command(client, game, {"type": "roll"}).status_code == 200
    response = command(clients[other], game, {"type": "abort"})
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "aborted" and body["view"]["result"]["reason"] == "aborted"
    assert body["view"]["result"]["winner"] is None
    game.refresh_from_db()
    assert game.status == "aborted" and game.winner is None
    finished = clients[name].get("/api/games/?status=finished").json()["games"]
    assert finished[0]["status"] == "aborted" and finished[0]["result"] is None


def play_until_both_moved(game, clients):
    for _ in range(10):
        name, client, _ = on_turn(game, clients)
        view = client.get(f"/api/games/{game.pk}/").json()["view"]
        if not any(c["type"] == "abort" for c in view["legal"]):
            return client
        choice = next(c for c in view["legal"] if c["type"] in ("roll", "direction", "place"))
        assert command(client, game, choice).status_code == 200
    raise AssertionError("both players should have moved by now")


def test_abort_is_refused_once_both_players_have_moved(game, clients):
    client = play_until_both_moved(game, clients)
    before = Game.objects.get(pk=game.pk).version
    response = command(client, game, {"type": "abort"})
    assert response.status_code == 400 and response.json()["error"]["code"] == "cannot_abort"
    assert Game.objects.get(pk=game.pk).version == before


def test_resigning_at_any_time_hands_the_win_to_the_opponent(game, clients):
    name, _, other = on_turn(game, clients)
    response = command(clients[other], game, {"type": "resign"})  # not their turn: still fine
    assert response.status_code == 200
    assert response.json()["view"]["result"]["winner"] == "opponent"
    mine = clients[name].get(f"/api/games/{game.pk}/").json()["view"]["result"]
    assert mine["winner"] == "me" and mine["reason"] == "resignation"


def test_the_game_over_sentence_is_told_from_each_reader_s_side(game, clients):
    assert clients["anna"].get(f"/api/games/{game.pk}/").json()["outcome"] is None
    command(clients["bernd"], game, {"type": "resign"})
    told = {n: clients[n].get(f"/api/games/{game.pk}/").json()["outcome"] for n in clients}
    assert told["anna"].startswith("Game over: You won (by resignation)")
    assert told["bernd"].startswith("Game over: anna won (by resignation)")
    assert told["carl"].startswith("Game over: anna won")  # a watcher: by name
    replay = clients["carl"].get(f"/api/games/{game.pk}/replay/").json()
    assert replay["outcome"] == told["bernd"]


def test_a_rematch_is_a_new_invitation_with_the_same_options(players, clients):
    options = {"to": "bernd", "extra_wild": True, "days_per_move": 7}
    invitation = post(clients["anna"], "/api/invitations/", options).json()
    game_id = post(clients["bernd"], f"/api/invitations/{invitation['id']}/accept/").json()["game"]
    game = Game.objects.get(pk=game_id)
    early = post(clients["anna"], f"/api/games/{game_id}/rematch/")
    assert early.status_code == 409 and early.json()["error"]["code"] == "game_not_over"
    command(clients["anna"], game, {"type": "resign"})
    assert post(clients["carl"], f"/api/games/{game_id}/rematch/").status_code == 403
    offer = post(clients["anna"], f"/api/games/{game_id}/rematch/")
    assert offer.status_code == 201
    rematch = offer.json()
    assert (rematch["to"], rematch["extra_wild"], rematch["days_per_move"]) == ("bernd", True, 7)
    assert rematch["rematch_of"] == game_id
    again = post(clients["bernd"], f"/api/games/{game_id}/rematch/")
    assert again.status_code == 409 and again.json()["error"]["code"] == "rematch_offered"
    seen = clients["bernd"].get(f"/api/games/{game_id}/").json()["rematch"]
    assert seen == {"invitation": rematch["id"], "by": "opponent", "status": "open", "game": None}
    accepted = post(clients["bernd"], f"/api/invitations/{rematch['id']}/accept/")
    new_game = Game.objects.get(pk=accepted.json()["game"])
    assert new_game.extra_wild and new_game.days_per_move == 7
    assert clients["anna"].get(f"/api/games/{game_id}/").json()["rematch"]["game"] == new_game.pk
    assert Invitation.objects.get(pk=rematch["id"]).rematch_of_id == game_id
