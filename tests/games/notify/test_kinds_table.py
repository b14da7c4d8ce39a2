"""The table of kinds is the one source: every kind is in the outbox's choices, the
profile's form, the admin, ``wants`` and the sender's dispatch, and a kind added as a row
(with its compose functions) reaches all of them with no other change."""

from __future__ import annotations

import dataclasses

import pytest
from django.core import mail as outbox_mail
from django.test import Client

from games.models import Notification
from games.notify import kinds, mail, push, queue, send, writers
from games.notify.preferences import PreferencesForm, chosen, wants

from ...helpers.accounts import confirmed_address
from ...helpers.choices import choose

pytestmark = pytest.mark.django_db


def test_every_kind_is_in_the_choices_the_form_and_the_dispatch():
    names = [kind.name for kind in kinds.KINDS]
    assert len(set(names)) == len(names)
    assert [value for value, _ in Notification._meta.get_field("kind").choices] == names
    form_fields = set(PreferencesForm().fields)
    fields = [choice.field for _k, _c, choice in kinds.all_choices()]
    assert len(set(fields)) == len(fields)  # one key each in the stored choices
    for kind in kinds.KINDS:
        assert len(kind.name) <= kinds.KIND_MAX
        assert kind.channels, kind.name
        for channel in kind.channels:
            assert kind.choice(channel).field in form_fields
        if kind.email:  # an email: its words, its footer, its unsubscribe page
            # its own function, or one an app above games registered (``writers``)
            write = getattr(mail, kind.compose, None) or writers.EMAIL.get(kind.compose)
            assert callable(write), kind.name
            assert "%(url)s" in str(kind.footer) and kind.question and kind.unsubscribed
        if kind.push:
            write = getattr(push, kind.compose, None) or writers.PUSH.get(kind.compose)
            assert callable(write), kind.name
    assert set(kinds.CHANNELS) == set(Notification.Channel.values)


def test_the_admin_has_a_box_for_every_choice(admin_client, players):
    anna = players["anna"]
    page = admin_client.get(f"/admin/games/notificationpreferences/{anna.pk}/change/")
    assert page.status_code == 200
    html = page.content.decode()
    for _kind, _channel, choice in kinds.all_choices():
        assert f'name="{choice.field}"' in html
    data = {choice.field: "on" for _k, _c, choice in kinds.all_choices()}
    del data["push_timeouts"]
    response = admin_client.post(
        f"/admin/games/notificationpreferences/{anna.pk}/change/", {**data, "_save": "Save"}
    )
    assert response.status_code == 302
    anna.refresh_from_db()
    assert chosen(anna, "daily_digest") and not chosen(anna, "push_timeouts")
    assert anna.digest_due_at is not None  # the daily kind chosen: its hour scheduled


# -- a row added to the table --------------------------------------------------------------

FRIEND = kinds.Kind(
    "friend",
    "a friend joined",
    compose="friend",
    title="A friend joined",
    email=kinds.Choice("email_friend", "email me when a friend joins"),
    push=kinds.Choice("push_friend", "notify my devices when a friend joins", default=False),
    footer="To stop the emails about friends, open:\n%(url)s\n",
    question="Stop the emails about friends?",
    unsubscribed="No more emails about friends.",
)


@pytest.fixture
def friend_kind(monkeypatch):
    """The table with one more row, and its compose functions: nothing else changes."""
    monkeypatch.setattr(kinds, "KINDS", (*kinds.KINDS, FRIEND))
    monkeypatch.setattr(
        mail, "friend", lambda n: ("A friend joined", f"{n.key} joined.\n"), raising=False
    )
    monkeypatch.setattr(
        push,
        "friend",
        lambda n: push.Message(payload={"title": n.key}, topic="friend", ttl=60),
        raising=False,
    )
    return FRIEND


def test_a_new_row_reaches_the_form_wants_the_queue_and_the_sender(friend_kind, players):
    anna = players["anna"]
    confirmed_address(anna)
    assert ("friend", "a friend joined") in Notification._meta.get_field("kind").choices
    form = PreferencesForm(instance=anna)
    assert {"email_friend", "push_friend"} <= set(form.fields)
    assert form.channels()[-1][:2] == ("friend", "A friend joined")
    # the row's defaults: email on, push off (and no device anyway)
    assert wants(anna, "friend", "email") and not wants(anna, "friend", "push")
    assert queue.tell(anna, "friend", "bernd")
    assert send.send_notifications() == 1
    (message,) = outbox_mail.outbox
    assert message.subject == "A friend joined"
    assert message.body.startswith("bernd joined.\n\n-- \nTo stop the emails about friends")
    # its unsubscribe link turns off exactly its emails
    link = message.extra_headers["List-Unsubscribe"].strip("<>").split("://", 1)[1]
    path = link[link.index("/") :]
    assert "Stop the emails about friends?" in Client().get(path).content.decode()
    Client().post(path)
    anna.refresh_from_db()
    assert not chosen(anna, "email_friend") and chosen(anna, "email_on_turn")
    assert not wants(anna, "friend", "email")


def test_a_new_row_is_chosen_on_the_settings_page(friend_kind, clients, players):
    data = {"language": "", "time_zone": "UTC", "push_friend": "on"}
    assert clients["anna"].post("/accounts/preferences/", data).status_code == 302
    anna = players["anna"]
    anna.refresh_from_db()
    assert chosen(anna, "push_friend") and not chosen(anna, "email_friend")
    page = clients["anna"].get("/settings/").content.decode()
    assert 'aria-labelledby="channel-friend channel-push"' in page


def test_a_row_without_push_has_no_push_box_and_no_push(friend_kind, monkeypatch, players):
    email_only = dataclasses.replace(FRIEND, push=None)
    monkeypatch.setattr(kinds, "KINDS", (*kinds.KINDS[:-1], email_only))
    choose(players["anna"], email_friend=True)
    assert "push_friend" not in PreferencesForm(instance=players["anna"]).fields
    assert not wants(players["anna"], "friend", "push")
    with pytest.raises(ValueError):
        choose(players["anna"], push_friend=True)
