"""Chat, reports and blocks from the players' side, with hostile input."""

import pytest

from games.models import ChatMessage
from moderation.models import Report

from ..helpers.games import post

pytestmark = pytest.mark.django_db


def chat(client, game, text):
    return post(client, f"/api/games/{game.pk}/chat/", {"text": text})


def test_players_chat_and_html_is_kept_as_text(clients, game):
    hostile = '<script>alert("x")</script> & <b>bold</b>'
    response = chat(clients["anna"], game, hostile)
    assert response.status_code == 201 and response.json()["text"] == hostile
    seen = clients["bernd"].get(f"/api/games/{game.pk}/chat/").json()["chat"]
    assert seen == [{"id": seen[0]["id"], "by": "opponent", "text": hostile, "at": seen[0]["at"]}]
    page = clients["bernd"].get(f"/games/{game.pk}/").content.decode()
    assert "<script>alert" not in page  # embedded as escaped JSON only


@pytest.mark.parametrize(
    ("text", "code"),
    [("", "bad_message"), ("   ", "bad_message"), (5, "bad_message"), ("x" * 501, "too_long")],
)
def test_bad_chat_messages_are_refused(clients, game, text, code):
    response = chat(clients["anna"], game, text)
    assert response.status_code == 400 and response.json()["error"]["code"] == code
    assert not ChatMessage.objects.exists()


def test_chat_flooding_is_rate_limited(clients, game):
    answers = [chat(clients["anna"], game, f"spam {i}") for i in range(8)]
    assert [a.status_code for a in answers] == [201] * 5 + [429] * 3
    refused = answers[-1]
    assert refused.json()["error"]["code"] == "rate_limited"
    retry = int(refused["Retry-After"])
    assert 1 <= retry <= 10 and refused.json()["error"]["retry_after"] == retry
    assert ChatMessage.objects.count() == 5


def test_only_the_players_chat(clients, game):
    response = chat(clients["carl"], game, "hi")
    assert response.status_code == 403 and response.json()["error"]["code"] == "not_a_player"


def test_a_block_stops_invitations_and_chat(clients, game):
    assert post(clients["anna"], "/api/blocks/", {"username": "Bernd"}).status_code == 201
    assert clients["anna"].get("/api/blocks/").json() == {"blocked": ["bernd"]}
    invite = post(clients["bernd"], "/api/invitations/", {"to": "anna"})
    assert invite.status_code == 403 and invite.json()["error"]["code"] == "blocked"
    assert chat(clients["bernd"], game, "hello").json()["error"]["code"] == "blocked"
    assert post(clients["anna"], "/api/blocks/", {"username": "anna"}).status_code == 400
    post(clients["anna"], "/api/blocks/bernd/remove/")
    assert post(clients["bernd"], "/api/invitations/", {"to": "anna"}).status_code == 201


def test_reports_on_a_game_or_a_message_reach_the_queue(clients, game):
    message = chat(clients["anna"], game, "you cheat").json()
    on_game = post(clients["bernd"], "/api/reports/", {"game": game.pk, "reason": "stalling"})
    on_message = post(
        clients["bernd"], "/api/reports/", {"message": message["id"], "reason": "insult"}
    )
    assert on_game.status_code == on_message.status_code == 201
    assert Report.objects.filter(status="open").count() == 2
    # A stranger cannot report a message of a game they do not play.
    stranger = post(clients["carl"], "/api/reports/", {"message": message["id"], "reason": "x"})
    assert stranger.status_code == 404


@pytest.mark.parametrize(
    "body",
    [
        {"game": 1},
        {"reason": "x"},
        {"game": 1, "message": 1, "reason": "x"},
        {"game": 1, "reason": "x" * 1001},
        {"game": 1, "reason": "x", "extra": 1},
    ],
)
def test_bad_reports_are_refused(clients, game, body):
    assert post(clients["bernd"], "/api/reports/", body).status_code == 400
    assert not Report.objects.exists()


def test_report_flooding_is_rate_limited(clients, game):
    codes = [
        post(clients["bernd"], "/api/reports/", {"game": game.pk, "reason": f"r{i}"}).status_code
        for i in range(12)
    ]
    assert codes == [201] * 10 + [429] * 2
