import pytest
from django.test import Client

from accounts.models import ApiToken

from ..helpers.games import command_body, on_turn, post

pytestmark = pytest.mark.django_db


def test_a_bearer_token_plays_without_session_or_csrf(game, players, clients):
    name, _, _ = on_turn(game, clients)
    token, raw = ApiToken.issue(players[name], "my bot")
    bot = Client(enforce_csrf_checks=True, HTTP_AUTHORIZATION=f"Bearer {raw}")
    response = post(bot, f"/api/games/{game.pk}/commands/", command_body({"type": "roll"}, 2))
    assert response.status_code == 200, response.content
    assert response.json()["players"]["me"] == name
    token.refresh_from_db()
    assert token.last_used_at is not None
    assert raw not in token.digest and token.hint == raw[:8]


@pytest.mark.parametrize("header", ["Bearer nope", "Token abc", "Bearer ", "Basic dXNlcjpwdw=="])
def test_bad_or_revoked_tokens_get_401(game, players, header):
    response = Client(HTTP_AUTHORIZATION=header).get(f"/api/games/{game.pk}/")
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "bad_token"


def test_a_revoked_token_or_inactive_user_is_refused(game, players):
    token, raw = ApiToken.issue(players["anna"], "old")
    client = Client(HTTP_AUTHORIZATION=f"Bearer {raw}")
    assert client.get("/api/games/").status_code == 200
    players["anna"].is_active = False
    players["anna"].save()
    assert client.get("/api/games/").status_code == 401
    token.delete()
    assert client.get("/api/games/").status_code == 401
