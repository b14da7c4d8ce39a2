"""What strangers send is refused with a clear code and changes nothing; every write a
stranger can make has a limit that holds under concurrency."""

import datetime as dt
import json
import re
import threading
import time

import pytest
from django.core import mail
from django.db import connection
from django.test import Client

from accounts.models import ApiToken, Block, Holiday, User
from games.models import ChatMessage, Invitation
from games.services import chat, commands, invitations, limits
from moderation.models import Report
from moderation.services import do_suspend
from shanghaien.lib.errors import Forbidden, RateLimited

from .helpers.games import post

pytestmark = pytest.mark.django_db

HOSTILE_TEXT = ["a\u0000b", "\ud800", "x\udfff", "\uffff", "\ufdd0", "bell\u0007", "\u0000"]


def error_of(response) -> tuple[int, str]:
    assert response["Content-Type"].startswith("application/json"), response.content[:200]
    return response.status_code, response.json()["error"]["code"]


def raw_post(client, url, text: str):
    """A body as typed, lone surrogates kept as JSON escapes (as a hostile client sends)."""
    return client.post(url, data=text.encode(), content_type="application/json")


def json_text(**fields) -> str:
    return json.dumps(fields)  # json.dumps writes "\ud800" as its escape, as a browser would


@pytest.mark.parametrize("text", HOSTILE_TEXT)
def test_text_that_is_not_text_is_refused_in_every_field(clients, game, text):
    anna = clients["anna"]
    before = (ChatMessage.objects.count(), Invitation.objects.count(), Report.objects.count())
    cases = [
        (f"/api/games/{game.pk}/chat/", {"text": text}),
        ("/api/invitations/", {"to": None, "message": text}),
        ("/api/invitations/", {"to": text}),
        ("/api/reports/", {"game": game.pk, "reason": text}),
        ("/api/blocks/", {"username": text}),
    ]
    for url, body in cases:
        status, code = error_of(raw_post(anna, url, json_text(**body)))
        assert (status, code) == (400, "bad_text"), (url, body)
    after = (ChatMessage.objects.count(), Invitation.objects.count(), Report.objects.count())
    assert after == before and not Block.objects.exists()


def test_a_bad_text_message_names_its_field(clients, game):
    response = raw_post(clients["anna"], "/api/reports/", json_text(game=game.pk, reason="\x00"))
    assert "'reason'" in response.json()["error"]["message"]


def test_line_breaks_stay_allowed_where_a_person_types_them(clients, game):
    response = post(clients["anna"], f"/api/games/{game.pk}/chat/", {"text": "gg\nwell played"})
    assert response.status_code == 201
    assert ChatMessage.objects.get().text == "gg\nwell played"


@pytest.mark.parametrize(
    "path",
    [
        "/users/%00/",
        "/users/anna%00/",
        "/users/%ED%A0%80/",
        "/users/" + "a" * 151 + "/",
        "/api/blocks/%00/remove/",
        "/api/games/99999999999999999999999/",
        "/api/games/%D9%A1%D9%A2/",
        "/games/99999999999999999999999/",
    ],
)
def test_hostile_paths_are_not_found(clients, path):
    client = clients["anna"]
    response = post(client, path) if "remove" in path else client.get(path)
    assert response.status_code == 404


def test_a_report_on_a_message_that_is_not_an_id_is_not_found(clients, game):
    for message in ("abc", "1.5", [1], {"id": 1}, 10**30, "١٢", True):
        response = post(clients["bernd"], "/api/reports/", {"message": message, "reason": "spam"})
        assert error_of(response) == (404, "not_found"), message
    assert not Report.objects.exists()


def test_a_holiday_far_away_or_too_long_is_refused_at_once(clients, players):
    today = dt.date.today()
    cases = [
        ("2027-01-01", "9999-12-31", "holiday_allowance"),
        ((today + dt.timedelta(days=400)).isoformat(), "9999-12-31", "holiday_too_far"),
        ("9999-12-30", "9999-12-31", "holiday_too_far"),
        (
            (today + dt.timedelta(days=2)).isoformat(),
            (today + dt.timedelta(days=40)).isoformat(),
            "holiday_allowance",
        ),
    ]
    for start, end, code in cases:
        started = time.monotonic()
        response = post(clients["anna"], "/api/holidays/", {"start": start, "end": end})
        assert error_of(response) == (400, code), (start, end)
        assert time.monotonic() - started < 0.5
    assert not Holiday.objects.exists()


def test_a_rematch_is_not_offered_across_a_block(clients, game, players):
    commands.do_command(game.pk, players["anna"], {"type": "resign"}, game.version, "r1")
    Block.objects.create(user=players["bernd"], blocked=players["anna"])
    response = post(clients["anna"], f"/api/games/{game.pk}/rematch/")
    assert error_of(response) == (403, "blocked")
    assert not Invitation.objects.filter(rematch_of=game).exists()


def test_a_suspended_player_can_no_longer_invite(players):
    moderator = User.objects.create_superuser("mod", password="x")
    anna = User.objects.get(username="anna")  # as a socket would hold it, loaded before
    do_suspend(players["anna"].pk, moderator, "spam", days=3)
    with pytest.raises(Forbidden) as refused:
        invitations.do_invite(anna, to="bernd")
    assert refused.value.code == "suspended"


# -- limits ------------------------------------------------------------------------------


def assert_rate_limited(response, within: int):
    assert error_of(response) == (429, "rate_limited")
    retry = int(response["Retry-After"])
    assert 1 <= retry <= within and response.json()["error"]["retry_after"] == retry


def test_open_invitations_per_sender_are_limited(clients, django_user_model):
    for i in range(invitations.OPEN_INVITATIONS_MAX):
        django_user_model.objects.create_user(f"friend{i}")
        assert post(clients["anna"], "/api/invitations/", {"to": f"friend{i}"}).status_code == 201
    assert_rate_limited(post(clients["anna"], "/api/invitations/", {"to": None}), 3600)
    assert Invitation.objects.count() == invitations.OPEN_INVITATIONS_MAX
    # an answer frees a place
    invitations.do_cancel_invitation(
        Invitation.objects.first().pk, User.objects.get(username="anna")
    )
    assert post(clients["anna"], "/api/invitations/", {"to": None}).status_code == 201


def test_invitations_to_one_player_are_limited_per_day(clients, players):
    anna = players["anna"]
    for _ in range(limits.INVITATIONS_TO_ONE_PER_DAY.count):
        invitation = invitations.do_invite(anna, to="bernd", message="a game?")
        invitations.do_cancel_invitation(invitation.pk, anna)
    mails_before = len(mail.outbox)
    assert_rate_limited(post(clients["anna"], "/api/invitations/", {"to": "bernd"}), 24 * 3600)
    assert post(clients["anna"], "/api/invitations/", {"to": "carl"}).status_code == 201
    assert len(mail.outbox) == mails_before


def test_invitations_per_hour_are_limited(players):
    anna = players["anna"]
    for _ in range(limits.INVITATIONS_PER_HOUR.count):
        invitations.do_cancel_invitation(invitations.do_invite(anna).pk, anna)
    with pytest.raises(RateLimited):
        invitations.do_invite(anna)


def test_the_invitation_form_says_when_to_try_again(clients):
    for _ in range(invitations.OPEN_INVITATIONS_MAX):
        clients["anna"].post("/invitations/new/", {"to": "", "days_per_move": 3})
    response = clients["anna"].post("/invitations/new/", {"to": "", "days_per_move": 3})
    assert response.status_code == 429 and int(response["Retry-After"]) > 0
    assert "try again" in response.content.decode().lower()


def test_token_creation_is_limited(clients, players):
    for i in range(10):
        response = clients["anna"].post(
            "/accounts/tokens/", {"name": f"bot {i}", "scopes": ["read"]}
        )
        assert response.status_code == 200
    response = clients["anna"].post("/accounts/tokens/", {"name": "one more", "scopes": ["read"]})
    assert response.status_code == 429 and response["Retry-After"]
    assert ApiToken.objects.filter(user=players["anna"]).count() == 10


def test_reports_are_limited(clients, game):
    codes = [
        post(clients["bernd"], "/api/reports/", {"game": game.pk, "reason": f"r{i}"}).status_code
        for i in range(11)
    ]
    assert codes == [201] * 10 + [429]


def burst(count: int, action) -> list:
    """Run ``action(i)`` on ``count`` threads released at once; their results or errors."""
    barrier = threading.Barrier(count)
    results = [None] * count

    def run(i):
        try:
            barrier.wait()
            results[i] = action(i)
        except Exception as error:  # the refusals are the point
            results[i] = error
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


@pytest.mark.django_db(transaction=True)
def test_limits_hold_under_a_concurrent_burst(game, players, django_user_model):
    anna = players["anna"]
    chats = burst(12, lambda i: chat.do_chat(game.pk, anna, f"spam {i}"))
    assert sum(isinstance(r, ChatMessage) for r in chats) == 5 == ChatMessage.objects.count()
    assert {r.code for r in chats if isinstance(r, Exception)} == {"rate_limited"}

    for i in range(12):
        django_user_model.objects.create_user(f"friend{i}")
    invites = burst(12, lambda i: invitations.do_invite(anna, to=f"friend{i}"))
    made = [r for r in invites if isinstance(r, Invitation)]
    still_open = Invitation.objects.filter(from_user=anna, status=Invitation.Status.OPEN)
    assert len(made) == invitations.OPEN_INVITATIONS_MAX == still_open.count()


# -- tokens and passwords ----------------------------------------------------------------


def test_the_new_token_page_is_never_cached(clients):
    response = clients["anna"].post("/accounts/tokens/", {"name": "bot", "scopes": ["read"]})
    assert response.status_code == 200
    assert "no-store" in response["Cache-Control"] or "no-cache" in response["Cache-Control"]
    assert "max-age=0" in response["Cache-Control"]


def test_a_password_change_revokes_the_tokens(clients, players):
    anna = players["anna"]
    ApiToken.issue(anna, "bot")
    page = clients["anna"].get("/accounts/password/change/").content.decode()
    assert "revokes all your API tokens" in page
    response = clients["anna"].post(
        "/accounts/password/change/",
        {
            "oldpassword": "tavern-dice-42",
            "password1": "a-new-tavern-42",
            "password2": "a-new-tavern-42",
        },
    )
    assert response.status_code == 302
    assert not ApiToken.objects.filter(user=anna).exists()


def test_a_password_reset_revokes_the_tokens(players):
    anna = players["anna"]
    anna.email = "anna@example.org"
    anna.save()
    token, raw = ApiToken.issue(anna, "bot")
    client = Client()
    client.post("/accounts/password/reset/", {"email": "anna@example.org"})
    link = re.search(r"https?://\S+/password/reset/key/\S+/", mail.outbox[-1].body).group(0)
    form = client.get(link, follow=True)
    assert "revokes all your API tokens" in form.content.decode()
    response = client.post(
        form.redirect_chain[-1][0],
        {"password1": "a-new-tavern-42", "password2": "a-new-tavern-42"},
    )
    assert response.status_code == 302
    assert not ApiToken.objects.filter(pk=token.pk).exists()
    api = Client(headers={"authorization": f"Bearer {raw}"}).get("/api/games/")
    assert api.status_code == 401


def test_logging_in_does_not_revoke_tokens(players):
    token, _ = ApiToken.issue(players["anna"], "bot")
    assert Client().login(username="anna", password="tavern-dice-42")
    assert ApiToken.objects.filter(pk=token.pk).exists()


# -- bodies ------------------------------------------------------------------------------


def test_a_form_post_over_the_limit_is_413_not_500(clients):
    response = clients["anna"].post("/invitations/new/", {"message": "x" * 400_000})
    assert response.status_code == 413
    assert not Invitation.objects.exists()


def test_the_form_fallback_of_the_board_refuses_deep_json(clients, game, players):
    name = game.to_move.username
    before = game.version
    response = clients[name].post(
        f"/games/{game.pk}/play/",
        {"command": "[" * 3000 + "]" * 3000, "expected_version": before, "client_id": "x1"},
    )
    assert response.status_code == 302
    game.refresh_from_db()
    assert game.version == before
