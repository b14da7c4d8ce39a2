import pytest
from django.core import mail
from django.db import IntegrityError, transaction
from django.test import Client

from accounts.models import ApiToken, User, hash_token
from games.notify.preferences import chosen
from games.services import commands, invitations

pytestmark = pytest.mark.django_db


def signup(client, username, password="tavern-dice-42", email=None):
    email = email or f"{username.lower()}@example.org"
    data = {"username": username, "email": email, "password1": password, "password2": password}
    return client.post("/accounts/signup/", data)


def test_a_new_player_comes_in_by_logging_in_after_signing_up():
    client = Client()
    response = signup(client, "Anna")
    assert response.status_code == 302 and response["Location"] == "/accounts/confirm-email/"
    assert client.get("/").context["user"].is_anonymous  # the page asks to confirm first
    response = client.post("/accounts/login/", {"login": "anna", "password": "tavern-dice-42"})
    assert response.status_code == 302
    assert client.get("/").context["user"].username == "Anna"


def test_usernames_are_unique_ignoring_case():
    signup(Client(), "Anna")
    response = signup(Client(), "anna", email="other@example.org")
    assert response.status_code == 200
    assert "already exists" in response.content.decode()
    with pytest.raises(IntegrityError), transaction.atomic():
        User.objects.create_user("ANNA", password="x")
    assert User.objects.filter(bot_level="").count() == 1  # the bots aside


def test_login_ignores_the_case_of_the_username():
    User.objects.create_user("Anna", password="tavern-dice-42")
    client = Client()
    response = client.post("/accounts/login/", {"login": "anna", "password": "tavern-dice-42"})
    assert response.status_code == 302


def test_password_reset_sends_an_email():
    User.objects.create_user("anna", email="anna@example.org", password="tavern-dice-42")
    response = Client().post("/accounts/password/reset/", {"email": "anna@example.org"})
    assert response.status_code == 302
    assert len(mail.outbox) == 1 and "anna" in mail.outbox[0].body


def test_password_change_page_renders_for_a_player():
    client = Client()
    client.force_login(User.objects.create_user("anna", password="tavern-dice-42"))
    assert client.get("/accounts/password/change/").status_code == 200


def test_profile_shows_the_record_and_current_games():
    anna = User.objects.create_user("anna", password="x")
    bernd = User.objects.create_user("bernd", password="x")
    finished = invitations.do_accept_invitation(invitations.do_invite(anna, to="bernd").pk, bernd)
    commands.do_command(finished.pk, bernd, {"type": "resign"}, finished.version, "r")
    current = invitations.do_accept_invitation(invitations.do_invite(bernd, to="anna").pk, anna)
    response = Client().get("/users/ANNA/")
    assert response.status_code == 200
    assert response.context["record"] == {"played": 1, "won": 1, "lost": 0, "drawn": 0}
    assert [g["id"] for g in response.context["games"]] == [current.pk]
    assert "API tokens" not in response.content.decode()  # not one's own profile
    assert Client().get("/users/nobody/").status_code == 404


def test_preferences_switch_the_turn_email():
    anna = User.objects.create_user("anna", password="x")
    client = Client()
    client.force_login(anna)
    data = {"email_on_turn": "on", "time_zone": "Europe/Berlin", "language": "de"}
    response = client.post("/accounts/preferences/", data)
    assert response.status_code == 302
    anna.refresh_from_db()
    assert (chosen(anna, "email_on_turn"), anna.time_zone, anna.language) == (
        True,
        "Europe/Berlin",
        "de",
    )


def test_a_token_is_shown_once_and_stored_only_as_a_hash():
    anna = User.objects.create_user("anna", password="x")
    client = Client()
    client.force_login(anna)
    response = client.post("/accounts/tokens/", {"name": "my bot", "scopes": ["read", "play"]})
    raw = response.context["raw"]
    assert raw.startswith("shg_") and raw in response.content.decode()
    token = ApiToken.objects.get(user=anna)
    assert token.digest == hash_token(raw) and raw not in str(token.__dict__.values())
    assert raw not in client.get("/users/anna/").content.decode()
    client.post(f"/accounts/tokens/{token.pk}/revoke/")
    assert not ApiToken.objects.exists()


def test_nobody_else_can_revoke_a_token():
    anna = User.objects.create_user("anna", password="x")
    token, _ = ApiToken.issue(anna, "bot")
    client = Client()
    client.force_login(User.objects.create_user("carl", password="x"))
    assert client.post(f"/accounts/tokens/{token.pk}/revoke/").status_code == 404
    assert ApiToken.objects.filter(pk=token.pk).exists()


def test_holidays_are_declared_and_cancelled_on_the_profile():
    import datetime as dt

    anna = User.objects.create_user("anna", password="x")
    client = Client()
    client.force_login(anna)
    start = dt.date.today() + dt.timedelta(days=3)
    end = start + dt.timedelta(days=2)
    response = client.post("/accounts/holidays/", {"start": start, "end": end}, follow=True)
    assert "deadlines pause" in response.content.decode()
    holiday = anna.holidays.get()
    assert holiday.days == 3
    refused = client.post("/accounts/holidays/", {"start": start, "end": end}, follow=True)
    assert "overlaps" in refused.content.decode()
    client.post(f"/accounts/holidays/{holiday.pk}/cancel/")
    assert not anna.holidays.exists()
