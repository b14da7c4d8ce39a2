"""Resign, abort (refused: a dealt game cannot be called off) and rematch through the API."""

import pytest

from games.models import Game, Invitation

from ..helpers.games import command_body, on_turn, post

pytestmark = pytest.mark.django_db


def command(client, game, cmd):
    game.refresh_from_db()
    return post(client, f"/api/games/{game.pk}/commands/", command_body(cmd, game.version))


def refused_abort(game, client):
    before = Game.objects.get(pk=game.pk).version
    response = command(client, game, {"type": "abort"})
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "cannot_abort" and "resign" in error["message"]
    game.refresh_from_db()
    assert game.version == before and game.status == Game.Status.ACTIVE


def test_a_dealt_game_cannot_be_aborted_by_either_player(game, clients):
    """The tavern and the start player are seen as the game starts: no free reshuffle."""
    name, client, other = on_turn(game, clients)
    for reader in (name, other):
        view = clients[reader].get(f"/api/games/{game.pk}/").json()["view"]
        assert {"type": "abort"} not in view["legal"]
        refused_abort(game, clients[reader])
    assert command(client, game, {"type": "roll"}).status_code == 200  # the dice are seen
    for reader in (name, other):
        refused_abort(game, clients[reader])
    response = command(clients[other], game, {"type": "resign"})  # leaving is resigning
    assert response.status_code == 200 and response.json()["status"] == "finished"
    assert response.json()["view"]["result"]["reason"] == "resignation"


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
    offered = {"invitation": rematch["id"], "by": "opponent", "status": "open", "game": None}
    assert seen == {**offered, "commitment": rematch["commitment"]}
    accepted = post(clients["bernd"], f"/api/invitations/{rematch['id']}/accept/")
    new_game = Game.objects.get(pk=accepted.json()["game"])
    assert new_game.extra_wild and new_game.days_per_move == 7
    assert clients["anna"].get(f"/api/games/{game_id}/").json()["rematch"]["game"] == new_game.pk
    assert Invitation.objects.get(pk=rematch["id"]).rematch_of_id == game_id
