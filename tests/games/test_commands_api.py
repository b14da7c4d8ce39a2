"""Every bad request gets a clear error and changes nothing."""

import json

import pytest
from django.test import Client

from games.models import Command, Event, Game

from ..helpers.games import command_body, on_turn, post

pytestmark = pytest.mark.django_db


def snapshot(game):
    game.refresh_from_db()
    return (game.version, Event.objects.filter(game=game).count(), json.dumps(game.state))


def url(game):
    return f"/api/games/{game.pk}/commands/"


def assert_error(response, status, code):
    assert response.status_code == status, response.content
    body = response.json()
    assert body["error"]["code"] == code
    assert body["error"]["message"]


def test_a_legal_command_applies_and_returns_the_new_game(game, clients):
    name, client, _ = on_turn(game, clients)
    response = post(client, url(game), command_body({"type": "roll"}, game.version))
    assert response.status_code == 200
    body = response.json()
    assert body["version"] == game.version + 1
    assert body["view"]["roll"]["by"] == "me"
    assert body["applied"] == {"version": game.version + 1, "duplicate": False}
    assert body["players"]["me"] == name


def test_a_stranger_gets_403_and_changes_nothing(game, clients):
    before = snapshot(game)
    response = post(clients["carl"], url(game), command_body({"type": "roll"}, game.version))
    assert_error(response, 403, "not_a_player")
    assert snapshot(game) == before


def test_a_stranger_may_watch_but_is_offered_no_commands(game, clients):
    body = clients["carl"].get(f"/api/games/{game.pk}/").json()
    assert body["watching"] is True and body["view"]["legal"] == []
    assert body["players"] == {"me": "anna", "opponent": "bernd"}


def test_the_player_not_on_turn_gets_the_engines_code(game, clients):
    _, _, other = on_turn(game, clients)
    before = snapshot(game)
    response = post(clients[other], url(game), command_body({"type": "roll"}, game.version))
    assert_error(response, 400, "not_your_turn")
    assert snapshot(game) == before


def test_an_illegal_command_gets_400_with_the_engines_code(game, clients):
    _, client, _ = on_turn(game, clients)
    before = snapshot(game)
    response = post(client, url(game), command_body({"type": "shanghai"}, game.version))
    assert_error(response, 400, "cannot_shanghai_yet")
    response = post(client, url(game), command_body({"type": "fly"}, game.version))
    assert_error(response, 400, "bad_command")
    assert snapshot(game) == before


def test_a_stale_expected_version_gets_409(game, clients):
    _, client, _ = on_turn(game, clients)
    before = snapshot(game)
    response = post(client, url(game), command_body({"type": "roll"}, game.version - 1))
    assert_error(response, 409, "stale_version")
    assert snapshot(game) == before


def test_a_repeated_client_id_is_applied_once(game, clients):
    _, client, _ = on_turn(game, clients)
    body = command_body({"type": "roll"}, game.version, client_id="retry-me-1")
    first = post(client, url(game), body)
    second = post(client, url(game), body)
    assert first.status_code == second.status_code == 200
    assert second.json()["applied"] == {"version": first.json()["version"], "duplicate": True}
    assert second.json()["version"] == first.json()["version"]
    assert Event.objects.filter(game=game, kind="rolled").count() == 1
    assert Command.objects.filter(game=game).count() == 1


def test_a_client_id_cannot_be_reused_for_another_command(game, clients):
    _, client, _ = on_turn(game, clients)
    post(client, url(game), command_body({"type": "roll"}, game.version, client_id="same"))
    before = snapshot(game)
    response = post(client, url(game), command_body({"type": "resign"}, before[0], "same"))
    assert_error(response, 409, "client_id_reused")
    assert snapshot(game) == before


ROLL = {"type": "roll"}


def body_of(**fields):
    return json.dumps(fields).encode()


@pytest.mark.parametrize(
    ("body", "code"),
    [
        (b"{not json", "malformed_json"),
        (b"\xff\xfe", "malformed_json"),
        (b"[1, 2]", "bad_request"),
        (b'"roll"', "bad_request"),
        (b"{}", "bad_request"),
        (body_of(command=ROLL, client_id="x"), "bad_request"),
        (body_of(command="roll", expected_version=2, client_id="x"), "bad_request"),
        (body_of(command=ROLL, expected_version="2", client_id="x"), "bad_request"),
        (body_of(command=ROLL, expected_version=True, client_id="x"), "bad_request"),
        (body_of(command=ROLL, expected_version=2, client_id=""), "bad_request"),
        (body_of(command=ROLL, expected_version=2, client_id=5), "bad_request"),
        (body_of(command=ROLL, expected_version=2, client_id="a b"), "bad_request"),
        (
            body_of(command={"type": "place", "die": 7}, expected_version=2, client_id="x"),
            "bad_command",
        ),
        (body_of(command=ROLL, expected_version=2, client_id="a" * 64 + "\n"), "bad_request"),
        (body_of(command=ROLL, expected_version=2, client_id="abc\n"), "bad_request"),
        (b"[" * 5000 + b"]" * 5000, "malformed_json"),
        (b'{"command": ' + b"[" * 17 + b"]" * 17 + b"}", "malformed_json"),
        (b'{"command": NaN, "expected_version": 2, "client_id": "x"}', "malformed_json"),
    ],
)
def test_malformed_bodies_get_400_with_a_code(game, clients, body, code):
    _, client, _ = on_turn(game, clients)
    before = snapshot(game)
    response = client.post(url(game), data=body, content_type="application/json")
    assert_error(response, 400, code)
    assert snapshot(game) == before


@pytest.mark.parametrize("size", [20_000, 300_000, 3_000_000])
def test_bodies_over_the_limit_get_413(game, clients, size):
    _, client, _ = on_turn(game, clients)
    before = snapshot(game)
    body = body_of(command=ROLL, expected_version=2, client_id="x", pad="a" * size)
    assert_error(
        client.post(url(game), data=body, content_type="application/json"), 413, "too_large"
    )
    assert snapshot(game) == before


def test_a_trick_half_that_is_not_a_name_is_a_bad_command(game, clients):
    name, client, _ = on_turn(game, clients)
    for half in (["wild"], {"a": 1}, 3, None):
        command = {"type": "trick", "card": "T1", "half": half}
        response = post(client, url(game), command_body(command, game.version))
        assert_error(response, 400, "bad_command")


@pytest.mark.parametrize("path", ["/api/games/999999/", "/api/games/abc/", "/api/games/-1/"])
def test_unknown_games_get_404(clients, path):
    assert_error(clients["anna"].get(path), 404, "not_found")
    response = post(clients["anna"], path + "commands/", command_body({"type": "roll"}, 1))
    assert_error(response, 404, "not_found")


def test_unknown_api_paths_and_methods_get_json_errors(clients, game):
    assert_error(clients["anna"].get("/api/nothing/here/"), 404, "not_found")
    assert_error(clients["anna"].get("/api/"), 404, "not_found")
    for path in ("/api/blocks/anna%0A/remove/", "/api/holidays/1%0A/cancel/", "/api/%0A"):
        assert_error(post(clients["anna"], path), 404, "not_found")
    assert_error(clients["anna"].get(url(game)), 405, "method_not_allowed")
    assert_error(clients["anna"].delete(f"/api/games/{game.pk}/"), 405, "method_not_allowed")


def test_anonymous_requests_get_401(game):
    assert_error(Client().get(f"/api/games/{game.pk}/"), 401, "not_authenticated")
    response = post(Client(), url(game), command_body({"type": "roll"}, game.version))
    assert_error(response, 401, "not_authenticated")


def test_session_requests_need_the_csrf_token(game, players):
    client = Client(enforce_csrf_checks=True)
    client.force_login(players[game.to_move.username])
    before = snapshot(game)
    response = post(client, url(game), command_body({"type": "roll"}, game.version))
    assert_error(response, 403, "csrf_failed")
    assert snapshot(game) == before
    client.get("/")  # sets the CSRF cookie
    token = client.cookies["csrftoken"].value
    response = post(
        client, url(game), command_body({"type": "roll"}, game.version), HTTP_X_CSRFTOKEN=token
    )
    assert response.status_code == 200


@pytest.mark.parametrize(
    "content_type",
    [
        "multipart/form-data; boundary=b",
        "multipart/form-data",
        "application/x-www-form-urlencoded; charset=latin-1",
        "application/x-www-form-urlencoded",
    ],
)
def test_the_csrf_check_leaves_the_body_to_the_json_reader(game, players, content_type):
    """Whatever the Content-Type says, a session's token is in the header and the body is
    JSON: the check never parses the body as a form (which raised, or left it unreadable)."""
    client = Client(enforce_csrf_checks=True)
    client.force_login(players[game.to_move.username])
    client.get("/")  # sets the CSRF cookie
    token = client.cookies["csrftoken"].value
    body = json.dumps(command_body({"type": "roll"}, game.version))
    response = client.post(url(game), body, content_type=content_type, HTTP_X_CSRFTOKEN=token)
    assert response.status_code == 200, response.content
    many_fields = "&".join(["f=x"] * 1001)
    response = client.post(
        url(game), many_fields, content_type=content_type, HTTP_X_CSRFTOKEN=token
    )
    assert_error(response, 400, "malformed_json")


def test_no_response_during_a_game_holds_the_deck_order(game, clients):
    game.refresh_from_db()
    deck = game.state["deck"]
    for name in ("anna", "bernd", "carl"):
        text = clients[name].get(f"/api/games/{game.pk}/").content.decode()
        assert '"deck"' not in text
        assert json.dumps(deck[:8])[1:-1] not in text
    assert Game.objects.get(pk=game.pk).state["deck"] == deck


@pytest.mark.parametrize(
    ("extra", "code", "named"),
    [
        ({"extra": 1}, "bad_request", "extra"),
        ({"Command": ROLL}, "bad_request", "Command"),
        ({"command": {**ROLL, "die": 0}}, "bad_command", "'die'"),  # the engine's words
    ],
)
def test_the_move_refuses_unknown_fields_as_the_socket_does(game, clients, extra, code, named):
    _, client, _ = on_turn(game, clients)
    before = snapshot(game)
    response = post(client, url(game), {**command_body(ROLL, game.version), **extra})
    assert_error(response, 400, code)
    assert named in response.json()["error"]["message"]
    assert snapshot(game) == before


def test_chat_refuses_unknown_fields_and_keeps_nothing(game, clients):
    chat_url = f"/api/games/{game.pk}/chat/"
    response = post(clients["anna"], chat_url, {"text": "Ahoy", "to": "bernd"})
    assert_error(response, 400, "bad_request")
    assert "to" in response.json()["error"]["message"]
    response = post(clients["anna"], chat_url, {})
    assert_error(response, 400, "bad_message")
    assert clients["anna"].get(chat_url).json()["chat"] == []
    assert post(clients["anna"], chat_url, {"text": "Ahoy"}).status_code == 201


def test_a_refused_field_is_named_in_the_players_language(game, clients):
    _, client, _ = on_turn(game, clients)
    body = {"command": ROLL, "expected_version": "1", "client_id": "x"}
    response = post(client, url(game), body, HTTP_ACCEPT_LANGUAGE="de")
    assert_error(response, 400, "bad_request")
    assert "expected_version" in response.json()["error"]["message"]
