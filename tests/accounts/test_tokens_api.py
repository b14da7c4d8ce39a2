"""Personal API tokens over JSON: making them (a session, or the account's password and
for staff the second factor), listing and revoking them, and what their scopes and
expiry let them do over HTTP."""

from __future__ import annotations

import datetime as dt
import json
import re

import pytest
from django.core.cache import cache
from django.test import Client
from django.utils import timezone

from accounts.models import ApiToken
from accounts.tokens import TOKENS_MAX
from games.models import Game
from shanghaien.api_site import api
from tests.fuzz.snapshots import changes, snapshot
from tests.helpers.accounts import give_authenticator_app, log_in_with_second_factor, totp_code

pytestmark = pytest.mark.django_db

PASSWORD = "tavern-dice-42"  # the players' own (tests/conftest.py)


@pytest.fixture(autouse=True)
def fresh_limits():
    cache.clear()  # the attempt counters of other tests
    yield
    cache.clear()


def post(client, path, body, **headers):
    return client.post(path, json.dumps(body), content_type="application/json", **headers)


def bearer(raw):
    return Client(HTTP_AUTHORIZATION=f"Bearer {raw}")


def code_of(response):
    return response.json()["error"]["code"]


# -- making a token ---------------------------------------------------------------------------


def test_a_session_makes_a_token_shown_once(clients, players):
    made = post(clients["anna"], "/api/tokens/", {"name": "my bot", "scopes": ["read"]})
    assert made.status_code == 201, made.content
    body = made.json()
    assert body["name"] == "my bot" and body["scopes"] == ["read"]
    assert body["expires_at"] is None and body["token"].startswith(body["hint"])
    token = ApiToken.objects.get(pk=body["id"])
    assert token.user == players["anna"] and token.scope_set == {"read"}
    assert body["token"] not in json.dumps(clients["anna"].get("/api/tokens/").json())
    assert bearer(body["token"]).get("/api/holidays/").status_code == 200


def test_a_token_made_with_an_expiry_expires_then(clients):
    before = timezone.now()
    made = post(
        clients["anna"],
        "/api/tokens/",
        {"name": "a week", "scopes": ["play", "read"], "expires_in_days": 7},
    ).json()
    expires = dt.datetime.fromisoformat(made["expires_at"])
    assert before + dt.timedelta(days=7) <= expires <= timezone.now() + dt.timedelta(days=7)
    assert made["scopes"] == ["read", "play"]


@pytest.mark.parametrize(
    "body, code",
    [
        ({"name": "x", "scopes": []}, "bad_scopes"),
        ({"name": "x", "scopes": ["admin"]}, "bad_scopes"),
        ({"name": "x", "scopes": "read"}, "bad_scopes"),
        ({"name": "x"}, "bad_scopes"),
        ({"name": "x", "scopes": ["read"], "expires_in_days": 0}, "bad_expiry"),
        ({"name": "x", "scopes": ["read"], "expires_in_days": 366}, "bad_expiry"),
        ({"name": "x", "scopes": ["read"], "expires_in_days": "7"}, "bad_expiry"),
        ({"name": "x", "scopes": ["read"], "expires_in_days": True}, "bad_expiry"),
        ({"name": " ", "scopes": ["read"]}, "bad_text"),
        ({"scopes": ["read"]}, "bad_text"),
        ({"name": "x", "scopes": ["read"], "extra": 1}, "bad_request"),
    ],
)
def test_a_bad_body_is_refused_and_makes_nothing(clients, body, code):
    refused = post(clients["anna"], "/api/tokens/", body)
    assert refused.status_code == 400 and code_of(refused) == code, refused.content
    assert not ApiToken.objects.exists()


def test_the_session_needs_its_csrf_token(players):
    guarded = Client(enforce_csrf_checks=True)
    guarded.force_login(players["anna"])
    refused = post(guarded, "/api/tokens/", {"name": "x", "scopes": ["read"]})
    assert refused.status_code == 403 and code_of(refused) == "csrf_failed"
    assert not ApiToken.objects.exists()


def test_a_token_cannot_make_tokens(clients, players):
    _, raw = ApiToken.issue(players["anna"], "old", ("read", "play", "bot"))
    refused = post(bearer(raw), "/api/tokens/", {"name": "x", "scopes": ["read"]})
    assert refused.status_code == 403 and code_of(refused) == "token_not_allowed"
    # not even beside a session
    refused = post(
        clients["anna"],
        "/api/tokens/",
        {"name": "x", "scopes": ["read"]},
        HTTP_AUTHORIZATION=f"Bearer {raw}",
    )
    assert refused.status_code == 403 and code_of(refused) == "token_not_allowed"
    assert ApiToken.objects.count() == 1


def test_the_password_makes_a_token_without_a_session(players):
    made = post(
        Client(),
        "/api/tokens/",
        {"name": "bot", "scopes": ["read", "play"], "username": "anna", "password": PASSWORD},
    )
    assert made.status_code == 201, made.content
    assert ApiToken.objects.get().user == players["anna"]
    assert bearer(made.json()["token"]).get("/api/games/").status_code == 200


def test_nobody_without_a_password_or_session_makes_a_token(players):
    refused = post(Client(), "/api/tokens/", {"name": "bot", "scopes": ["read"]})
    assert refused.status_code == 401 and code_of(refused) == "not_authenticated"


def test_a_wrong_password_and_an_unknown_name_get_the_same_answer(players):
    answers = []
    for username, password in (("anna", "wrong-one"), ("nobody-here", PASSWORD)):
        refused = post(
            Client(),
            "/api/tokens/",
            {"name": "bot", "scopes": ["read"], "username": username, "password": password},
        )
        assert refused.status_code == 401
        answers.append(refused.json())
    assert answers[0] == answers[1] and answers[0]["error"]["code"] == "bad_credentials"
    assert not ApiToken.objects.exists()


def test_password_attempts_are_limited_per_account_name(players):
    body = {"name": "bot", "scopes": ["read"], "username": "anna", "password": "wrong"}
    statuses = []
    for n in range(12):
        # each from another address: the name's own limit answers
        answer = post(Client(REMOTE_ADDR=f"10.0.0.{n + 1}"), "/api/tokens/", body)
        statuses.append(answer.status_code)
    assert statuses[:10] == [401] * 10 and statuses[10:] == [429, 429]
    assert int(answer["Retry-After"]) >= 1 and code_of(answer) == "rate_limited"
    # the right password too, now: a guesser learns nothing from the limit
    right = post(Client(REMOTE_ADDR="10.0.1.1"), "/api/tokens/", {**body, "password": PASSWORD})
    assert right.status_code == 429
    assert not ApiToken.objects.exists()


def test_password_attempts_are_limited_per_address(players):
    statuses = []
    for n in range(22):
        body = {"name": "bot", "scopes": ["read"], "username": f"name{n}", "password": "x"}
        statuses.append(post(Client(REMOTE_ADDR="10.9.9.9"), "/api/tokens/", body).status_code)
    assert statuses[:20] == [401] * 20 and statuses[20:] == [429, 429]
    elsewhere = {"name": "bot", "scopes": ["read"], "username": "anna", "password": PASSWORD}
    assert post(Client(REMOTE_ADDR="10.9.9.8"), "/api/tokens/", elsewhere).status_code == 201


def test_staff_need_their_authenticator_code_with_the_password(moderator):
    moderator.set_password(PASSWORD)
    moderator.save()
    body = {"name": "tool", "scopes": ["read"], "username": "mia", "password": PASSWORD}
    no_app = post(Client(), "/api/tokens/", body)
    assert no_app.status_code == 403 and code_of(no_app) == "second_factor_required"
    secret = give_authenticator_app(moderator)
    without = post(Client(), "/api/tokens/", body)
    assert without.status_code == 401 and code_of(without) == "second_factor_required"
    wrong = post(Client(), "/api/tokens/", {**body, "code": "000000"})
    if totp_code(secret) != "000000":
        assert wrong.status_code == 401 and code_of(wrong) == "bad_second_factor"
    assert not ApiToken.objects.exists()
    made = post(Client(), "/api/tokens/", {**body, "code": totp_code(secret)})
    assert made.status_code == 201, made.content


def test_staff_may_send_a_recovery_code_once(moderator):
    import secrets

    from allauth.mfa.adapter import get_adapter as get_mfa_adapter
    from allauth.mfa.models import Authenticator

    moderator.set_password(PASSWORD)
    moderator.save()
    give_authenticator_app(moderator)
    kept = Authenticator.objects.create(
        user=moderator,
        type=Authenticator.Type.RECOVERY_CODES,
        data={"seed": get_mfa_adapter().encrypt(secrets.token_hex(40)), "used_mask": 0},
    )
    code = kept.wrap().get_unused_codes()[0]
    body = {"name": "tool", "scopes": ["read"], "username": "mia", "password": PASSWORD}
    assert post(Client(), "/api/tokens/", {**body, "code": code}).status_code == 201
    again = post(Client(), "/api/tokens/", {**body, "code": code})
    assert again.status_code == 401 and code_of(again) == "bad_second_factor"
    assert ApiToken.objects.count() == 1


def test_staff_make_tokens_from_a_session_that_used_its_second_factor(moderator):
    plain = Client()
    plain.force_login(moderator)
    refused = post(plain, "/api/tokens/", {"name": "tool", "scopes": ["read"]})
    assert refused.status_code == 403 and code_of(refused) == "second_factor_required"
    confirmed = Client()
    log_in_with_second_factor(confirmed, moderator)
    assert post(confirmed, "/api/tokens/", {"name": "tool", "scopes": ["read"]}).status_code == 201


def test_the_limits_on_tokens_hold(clients, players):
    for n in range(TOKENS_MAX):
        ApiToken.issue(players["anna"], f"t{n}")
    refused = post(clients["anna"], "/api/tokens/", {"name": "one more", "scopes": ["read"]})
    assert refused.status_code == 429 and code_of(refused) == "rate_limited"


def test_guests_make_no_tokens():
    from accounts.guest_accounts import do_make_guest

    guest = Client()
    guest.force_login(do_make_guest("10.1.1.1"))
    refused = post(guest, "/api/tokens/", {"name": "x", "scopes": ["read"]})
    assert refused.status_code == 403 and not ApiToken.objects.exists()


# -- listing and revoking ---------------------------------------------------------------------


def test_the_list_shows_the_accounts_tokens_without_secrets(clients, players):
    mine, raw = ApiToken.issue(players["anna"], "mine", ("read",))
    ApiToken.issue(players["bernd"], "his")
    listed = bearer(raw).get("/api/tokens/").json()["tokens"]
    assert [t["name"] for t in listed] == ["mine"]
    assert set(listed[0]) == {
        "id",
        "name",
        "hint",
        "scopes",
        "created_at",
        "last_used_at",
        "expires_at",
    }
    assert mine.digest not in json.dumps(listed) and raw not in json.dumps(listed)


def test_a_session_revokes_any_of_its_tokens_not_anothers(clients, players):
    mine, raw = ApiToken.issue(players["anna"], "mine")
    his, _ = ApiToken.issue(players["bernd"], "his")
    assert post(clients["anna"], f"/api/tokens/{his.pk}/revoke/", {}).status_code == 404
    revoked = post(clients["anna"], f"/api/tokens/{mine.pk}/revoke/", {})
    assert revoked.status_code == 200 and revoked.json() == {"revoked": mine.pk}
    assert list(ApiToken.objects.all()) == [his]
    refused = bearer(raw).get("/api/games/")
    assert refused.status_code == 401 and code_of(refused) == "bad_token"


def test_a_token_revokes_itself_only(players):
    first, raw = ApiToken.issue(players["anna"], "first", ("read",))
    second, _ = ApiToken.issue(players["anna"], "second")
    refused = post(bearer(raw), f"/api/tokens/{second.pk}/revoke/", {})
    assert refused.status_code == 403 and ApiToken.objects.count() == 2
    assert post(bearer(raw), f"/api/tokens/{first.pk}/revoke/", {}).status_code == 200
    assert list(ApiToken.objects.all()) == [second]


def test_revoking_tells_the_tokens_group_after_the_commit(
    clients, players, monkeypatch, django_capture_on_commit_callbacks
):
    from accounts import tokens

    told = []
    monkeypatch.setattr(tokens, "close_tokens", lambda ids, reason: told.append((ids, reason)))
    mine, _ = ApiToken.issue(players["anna"], "mine")
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        post(clients["anna"], f"/api/tokens/{mine.pk}/revoke/", {})
    assert told == []  # not before the commit
    for callback in callbacks:
        callback()
    assert told == [([mine.pk], "revoked")]


def test_a_failing_channel_layer_does_not_fail_the_revocation(clients, players, monkeypatch):
    from accounts import tokens

    class Away:
        async def group_send(self, group, message):
            raise ConnectionError("the layer is away")

    monkeypatch.setattr(tokens, "get_channel_layer", lambda: Away())
    tokens.close_tokens([1, 2], "revoked")  # logged, not raised


# -- scopes and expiry over HTTP --------------------------------------------------------------


def test_an_expired_token_is_refused_with_its_own_code(players):
    _, raw = ApiToken.issue(
        players["anna"], "old", expires_at=timezone.now() - dt.timedelta(seconds=1)
    )
    refused = bearer(raw).get("/api/games/")
    assert refused.status_code == 401 and code_of(refused) == "token_expired"
    assert "expired" in refused.json()["error"]["message"]


def test_a_read_token_cannot_move(game, players):
    mover = game.to_move
    _, raw = ApiToken.issue(mover, "reader", ("read",))
    before = snapshot()
    refused = post(
        bearer(raw),
        f"/api/games/{game.pk}/commands/",
        {"command": {"type": "roll"}, "expected_version": game.version, "client_id": "c-1"},
    )
    assert refused.status_code == 403 and code_of(refused) == "insufficient_scope"
    assert "'play'" in refused.json()["error"]["message"]
    assert not changes(before, snapshot())
    assert bearer(raw).get(f"/api/games/{game.pk}/").status_code == 200
    _, player = ApiToken.issue(mover, "player", ("play",))  # play includes read
    assert bearer(player).get(f"/api/games/{game.pk}/").status_code == 200
    moved = post(
        bearer(player),
        f"/api/games/{game.pk}/commands/",
        {"command": {"type": "roll"}, "expected_version": game.version, "client_id": "c-1"},
    )
    assert moved.status_code == 200, moved.content
    assert Game.objects.get(pk=game.pk).version == game.version + 1


def test_a_bot_only_token_reads_nothing(players):
    _, raw = ApiToken.issue(players["anna"], "upgrade", ("bot",))
    refused = bearer(raw).get("/api/games/")
    assert refused.status_code == 403 and code_of(refused) == "insufficient_scope"


def test_an_operation_declares_its_own_scope(players):
    """``token_or_session(scope)`` asks for that scope whatever the method."""
    from django.http import HttpRequest

    from accounts.api import token_or_session
    from shanghaien.lib.errors import Forbidden

    token_check, _session = token_or_session("bot")
    for scopes, allowed in ((("read", "play"), False), (("bot",), True)):
        _, raw = ApiToken.issue(players["anna"], "t", scopes)
        request = HttpRequest()
        request.method = "POST"
        request.META["HTTP_AUTHORIZATION"] = f"Bearer {raw}"
        if allowed:
            assert token_check(request) == players["anna"]
        else:
            with pytest.raises(Forbidden) as refused:
                token_check(request)
            assert refused.value.code == "insufficient_scope" and "'bot'" in refused.value.message


# -- every operation of the schema, with a read token ----------------------------------------

PATH_VALUES = {"username": "bernd"}


def operations():
    schema = api.get_openapi_schema(path_prefix="/api/")
    for path, methods in schema["paths"].items():
        for method, operation in methods.items():
            yield path, method.upper(), operation


def concrete(path, ids):
    return re.sub(r"\{(\w+)\}", lambda m: str(PATH_VALUES.get(m.group(1), ids)), path)


def test_a_read_token_is_refused_every_operation_that_changes_something(game, players):
    _, raw = ApiToken.issue(players["anna"], "reader", ("read",))
    client = bearer(raw)
    walked = 0
    for path, method, _operation in operations():
        if method in ("GET", "HEAD"):
            continue
        if path in ("/api/tokens/", "/api/tokens/{pk}/revoke/"):
            continue  # below: no token makes tokens, and a token may revoke itself
        for ids in (game.pk, 1):
            before = snapshot()
            answer = client.generic(
                method, concrete(path, ids), json.dumps({}), content_type="application/json"
            )
            assert answer.status_code == 403, (method, path, answer.content)
            assert code_of(answer) == "insufficient_scope", (method, path)
            assert not changes(before, snapshot()), (method, path)
        walked += 1
    assert walked >= 20  # the walk saw the API's operations
    assert post(client, "/api/tokens/", {"name": "x", "scopes": ["play"]}).status_code == 403


def test_a_read_token_may_call_every_get_operation(game, players):
    _, raw = ApiToken.issue(players["anna"], "reader", ("read",))
    client = bearer(raw)
    for path, method, _operation in operations():
        if method == "GET":
            answer = client.get(concrete(path, game.pk))
            assert answer.status_code != 403 or code_of(answer) != "insufficient_scope", path


def test_a_request_without_an_address_is_counted_not_failed(players):
    body = {"name": "bot", "scopes": ["read"], "username": "anna", "password": "wrong"}
    refused = post(Client(REMOTE_ADDR=""), "/api/tokens/", body)
    assert refused.status_code == 401 and code_of(refused) == "bad_credentials"
