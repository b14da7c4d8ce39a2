import pytest

from games.models import Invitation

from ..helpers.games import post

pytestmark = pytest.mark.django_db


def invite(client, **body):
    return post(client, "/api/invitations/", {"to": "bernd", **body})


def test_an_invitation_lists_for_both_sides(clients):
    response = invite(clients["anna"], message="A game?")
    assert response.status_code == 201
    assert response.json()["days_per_move"] == 3 and response.json()["extra_wild"] is False
    assert [i["message"] for i in clients["bernd"].get("/api/invitations/").json()["received"]] == [
        "A game?"
    ]
    assert len(clients["anna"].get("/api/invitations/").json()["sent"]) == 1


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"to": "nobody"}, 404, "no_such_user"),
        ({"to": "ANNA"}, 400, "cannot_invite_yourself"),
        ({"days_per_move": 4}, 400, "bad_days_per_move"),
        ({"days_per_move": True}, 400, "bad_days_per_move"),
        ({"days_per_move": 3.0}, 400, "bad_days_per_move"),
        ({"extra_wild": "yes"}, 400, "bad_request"),
        ({"message": "x" * 301}, 400, "bad_message"),
        ({"to": 5}, 400, "bad_request"),
        ({"colour": "red"}, 400, "bad_request"),
    ],
)
def test_bad_invitations_are_refused(clients, body, status, code):
    response = invite(clients["anna"], **body)
    assert response.status_code == status
    assert response.json()["error"]["code"] == code
    assert not Invitation.objects.exists()


def test_an_open_invitation_can_be_taken_by_anyone_but_its_sender(clients):
    invitation = invite(clients["anna"], to=None, extra_wild=True).json()
    assert clients["carl"].get("/api/invitations/").json()["open"][0]["id"] == invitation["id"]
    accept = f"/api/invitations/{invitation['id']}/accept/"
    assert post(clients["anna"], accept).json()["error"]["code"] == "own_invitation"
    response = post(clients["carl"], accept)
    assert response.status_code == 201
    assert post(clients["bernd"], accept).status_code == 409  # already taken


def test_only_the_invited_player_can_accept_or_decline(clients):
    invitation = invite(clients["anna"]).json()
    base = f"/api/invitations/{invitation['id']}"
    assert post(clients["carl"], base + "/accept/").json()["error"]["code"] == "not_invited"
    assert post(clients["carl"], base + "/decline/").status_code == 403
    assert post(clients["bernd"], base + "/cancel/").status_code == 403
    response = post(clients["bernd"], base + "/decline/")
    assert response.status_code == 200 and response.json()["status"] == "declined"
    response = post(clients["bernd"], base + "/accept/")
    assert response.status_code == 409 and response.json()["error"]["code"] == "invitation_closed"


def test_the_sender_can_cancel_an_open_invitation(clients):
    invitation = invite(clients["anna"]).json()
    base = f"/api/invitations/{invitation['id']}"
    assert post(clients["anna"], base + "/cancel/").json()["status"] == "cancelled"
    assert post(clients["bernd"], base + "/accept/").status_code == 409
    assert post(clients["anna"], "/api/invitations/424242/accept/").status_code == 404


def test_accepting_starts_a_game_with_the_invitations_options(clients, players):
    invitation = invite(clients["anna"], extra_wild=True, days_per_move=14).json()
    game_id = post(clients["bernd"], f"/api/invitations/{invitation['id']}/accept/").json()["game"]
    body = clients["bernd"].get(f"/api/games/{game_id}/").json()
    assert body["extra_wild"] is True and body["days_per_move"] == 14
    assert body["players"] == {"me": "bernd", "opponent": "anna"}
    assert body["view"]["me"]["tricks"] == [
        {"id": "X2", "action": "adjust", "extra": True, "usable": True, "block": None}
    ]
    assert body["version"] == 2  # game_started, round_started
