"""The settings page's tokens: made with scopes and an expiry from a plain form (no
JavaScript), listed with their scopes, last use and expiry, revoked with what they
opened."""

from __future__ import annotations

import datetime as dt

import pytest
from django.test import Client
from django.utils import timezone, translation

from accounts.models import ApiToken
from tests.helpers.accounts import log_in_with_second_factor

pytestmark = pytest.mark.django_db


def test_the_form_makes_a_token_with_its_scopes_and_expiry(clients, players):
    made = clients["anna"].post(
        "/accounts/tokens/", {"name": "reader", "scopes": ["read"], "expires_in_days": "30"}
    )
    assert made.status_code == 200
    token = ApiToken.objects.get(user=players["anna"])
    assert token.scope_set == {"read"}
    assert abs(token.expires_at - (timezone.now() + dt.timedelta(days=30))) < dt.timedelta(
        minutes=1
    )
    assert token.hint in made.content.decode()


def test_a_token_without_expiry_holds_until_revoked(clients, players):
    clients["anna"].post(
        "/accounts/tokens/", {"name": "bot", "scopes": ["read", "play"], "expires_in_days": ""}
    )
    token = ApiToken.objects.get(user=players["anna"])
    assert token.expires_at is None and token.scope_set == {"read", "play"}


@pytest.mark.parametrize(
    "form",
    [
        {"name": "x"},  # no scope
        {"name": "x", "scopes": ["admin"]},
        {"name": "x", "scopes": ["read"], "expires_in_days": "12"},
        {"name": "", "scopes": ["read"]},
    ],
)
def test_a_bad_form_makes_nothing_and_says_why(clients, form):
    refused = clients["anna"].post("/accounts/tokens/", form, follow=True)
    assert refused.redirect_chain[-1][0] == "/settings/#tokens"
    assert not ApiToken.objects.exists()
    assert list(refused.context["messages"])


def test_the_list_shows_scopes_last_use_and_expiry(clients, players):
    ApiToken.issue(players["anna"], "watcher", ("read",), timezone.now() + dt.timedelta(days=7))
    used, _ = ApiToken.issue(players["anna"], "player", ("read", "play"))
    ApiToken.objects.filter(pk=used.pk).update(last_used_at=timezone.now())
    ApiToken.issue(players["anna"], "old", ("bot",), timezone.now() - dt.timedelta(days=1))
    with translation.override("en"):
        page = clients["anna"].get("/settings/").content.decode()
    section = page[page.index('id="tokens"') :]

    def row(name):
        start = section.index(f">{name} <code>")
        return section[start : section.index("Revoke", start)]

    assert "<code>read</code>" in row("watcher") and "<code>play</code>" not in row("watcher")
    assert "never used" in row("watcher") and "expires" in row("watcher")
    assert "<code>read</code> <code>play</code>" in row("player")
    assert "last used" in row("player") and "does not expire" in row("player")
    assert "expired" in row("old") and "<code>bot</code>" in row("old")
    assert 'type="checkbox"' in section and 'name="expires_in_days"' in section


def test_the_page_speaks_every_language(clients):
    for language, word in (("de", "Bereiche"), ("fr", "Portées"), ("it", "Ambiti")):
        with translation.override(language):
            page = clients["anna"].get("/settings/", HTTP_ACCEPT_LANGUAGE=language)
        assert word in page.content.decode(), language


def test_revoking_on_the_page_closes_what_the_token_opened(
    clients, players, monkeypatch, django_capture_on_commit_callbacks
):
    from accounts import tokens

    told = []
    monkeypatch.setattr(tokens, "close_tokens", lambda ids, reason: told.append((ids, reason)))
    token, _ = ApiToken.issue(players["anna"], "bot")
    with django_capture_on_commit_callbacks(execute=True):
        gone = clients["anna"].post(f"/accounts/tokens/{token.pk}/revoke/")
    assert gone["Location"] == "/settings/#tokens"
    assert not ApiToken.objects.exists() and told == [([token.pk], "revoked")]


def test_staff_make_tokens_on_the_page_after_their_second_factor(moderator):
    plain = Client()
    plain.force_login(moderator)
    plain.post("/accounts/tokens/", {"name": "tool", "scopes": ["read"]})
    assert not ApiToken.objects.exists()
    confirmed = Client()
    log_in_with_second_factor(confirmed, moderator)
    assert (
        confirmed.post("/accounts/tokens/", {"name": "tool", "scopes": ["read"]}).status_code == 200
    )
    assert ApiToken.objects.filter(user=moderator).exists()
