"""Signing up tells nobody whether an address already has an account: the page answers
the same for a taken address and a new one, and the owner of a taken address is told
by email."""

import re

import pytest
from django.core import mail
from django.test import Client

from accounts.models import User

pytestmark = pytest.mark.django_db

PASSWORD = "tavern-dice-42"


def sign_up(username: str, email: str, **headers):
    client = Client(**headers)
    data = {"username": username, "email": email, "password1": PASSWORD, "password2": PASSWORD}
    response = client.post("/accounts/signup/", data)
    return client, response


def page_after(client, response, email: str) -> str:
    """The page the answer sends the browser to, without the address it echoes and the
    form token (new in each session)."""
    assert response.status_code == 302, response.content
    page = client.get(response["Location"])
    assert page.status_code == 200
    text = page.content.decode().replace(email, "<email>")
    return re.sub(r'name="csrfmiddlewaretoken" value="[^"]+"', "<token>", text)


@pytest.fixture
def owner():
    owner = User.objects.create_user("anna", email="anna@example.org", password=PASSWORD)
    owner.language = "de"
    owner.save(update_fields=["language"])
    return owner


def test_a_taken_address_and_a_new_one_get_the_same_answer(owner):
    taken_client, taken = sign_up("mallory", "Anna@Example.org")
    fresh_client, fresh = sign_up("bernd", "bernd@example.org")
    assert taken.status_code == fresh.status_code == 302
    assert taken["Location"] == fresh["Location"] == "/accounts/confirm-email/"
    assert taken.content == fresh.content == b""
    assert sorted(taken.cookies) == sorted(fresh.cookies)
    taken_page = page_after(taken_client, taken, "anna@example.org")
    fresh_page = page_after(fresh_client, fresh, "bernd@example.org")
    assert "<email>" in taken_page
    assert taken_page == fresh_page
    # neither is logged in: both must follow the emailed link first
    assert taken_client.get("/").context["user"].is_anonymous
    assert fresh_client.get("/").context["user"].is_anonymous
    # no second account for the taken address; the new address has its account
    assert not User.objects.filter(username="mallory").exists()
    assert User.objects.get(username="bernd").email == "bernd@example.org"


def test_the_owner_of_a_taken_address_is_told_in_their_language(owner):
    sign_up("mallory", "anna@example.org", HTTP_ACCEPT_LANGUAGE="en")
    [told] = mail.outbox
    assert told.to == ["anna@example.org"]
    assert "Jemand hat versucht, sich mit deiner Adresse anzumelden" in told.subject
    assert "anna@example.org" in told.body
    assert "/accounts/password/reset/" in told.body
    assert "confirm-email" not in told.body


def test_a_new_address_gets_the_confirmation_link_and_the_link_lets_the_player_in():
    client, response = sign_up("bernd", "bernd@example.org")
    [sent] = mail.outbox
    assert sent.to == ["bernd@example.org"] and "/accounts/confirm-email/" in sent.body
    path = sent.body.split("/accounts/confirm-email/")[1].split("/")[0]
    confirmed = client.post(f"/accounts/confirm-email/{path}/")
    assert confirmed.status_code == 302
    assert client.get("/").context["user"].username == "bernd"


def test_a_taken_username_is_still_said_as_usernames_are_public(owner):
    _, response = sign_up("Anna", "someone@example.org")
    assert response.status_code == 200
    assert "already exists" in response.content.decode()
    assert mail.outbox == []
