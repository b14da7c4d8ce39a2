"""The email outbox: outcomes that fit their columns, retries with backoff, the warning."""

import datetime as dt
import importlib
import threading

import pytest
from django.apps import apps as django_apps
from django.core import mail
from django.db import connection
from django.test import Client

from games.models import Notification
from games.notify import queue as notify
from games.notify import send
from games.services import invitations

from ...helpers.accounts import confirmed_address
from ...helpers.choices import choose

T0 = dt.datetime(2026, 3, 2, 12, 0, tzinfo=dt.UTC)
BAD = "bernd@example.org"


def mailed(user, address):
    confirmed_address(user, address)
    choose(user, email_on_turn=True)
    return user


@pytest.fixture
def failing_mail(monkeypatch):
    """send_mail refuses the addresses in ``refused`` and delivers the rest to the outbox."""
    refused = {BAD}
    calls = []
    deliver = send.send_mail

    def send_mail(subject, body, sender, to, headers=None):
        calls.append(to[0])
        if to[0] in refused:
            raise ConnectionRefusedError("451 4.3.0 mail server\nunavailable " + "x" * 5000)
        return deliver(subject, body, sender, to, headers=headers)

    monkeypatch.setattr(send, "send_mail", send_mail)
    return refused, calls


def invite_bernd(players):
    """An invitation to bernd: one email queued for him."""
    invitations.do_invite(players["anna"], to="bernd")
    return Notification.objects.get(user=players["bernd"], kind="invitation")


def try_on_schedule(row):
    """Run the sender at each try the schedule allows, from T0; the time of the last."""
    now = T0
    for delay in (dt.timedelta(0), *send.RETRY_DELAYS):
        now += delay
        send.send_notifications(now)
    row.refresh_from_db()
    return now


def column(name):
    return Notification._meta.get_field(name).max_length


# -- every value fits its column (the PostgreSQL run enforces the lengths) --------------


def test_every_outcome_fits_its_column():
    assert all(len(value) <= column("outcome") for value in Notification.Outcome.values)


@pytest.mark.django_db
def test_a_long_skip_reason_is_stored(players, game):
    # "skipped: no longer your turn" did not fit the old 20-character outcome column.
    off_turn = players["anna"] if game.to_move_id == players["bernd"].pk else players["bernd"]
    mailed(off_turn, f"{off_turn.username}@example.org")
    notify.queue(off_turn, "turn", f"{game.pk}:{game.turn_number}", game)
    assert send.send_notifications(T0) == 0
    row = Notification.objects.get(kind="turn", user=off_turn)
    assert (row.outcome, row.detail, row.sent_at) == ("skipped", "no longer your turn", T0)
    assert mail.outbox == []


@pytest.mark.django_db
def test_a_skip_reason_is_cut_to_its_column(players, monkeypatch):
    monkeypatch.setattr(send, "compose", lambda notification: "why " * 300)
    mailed(players["carl"], "carl@example.org")
    invitations.do_invite(players["anna"], to="carl")
    send.send_notifications(T0)
    skipped = Notification.objects.get(user=players["carl"])
    assert skipped.outcome == "skipped"
    assert len(skipped.detail) == column("detail") and skipped.detail.endswith("…")


@pytest.mark.django_db
def test_a_send_error_is_cut_to_its_column(players, failing_mail):
    mailed(players["bernd"], BAD)
    row = invite_bernd(players)
    send.send_notifications(T0)
    row.refresh_from_db()
    assert row.detail.startswith("ConnectionRefusedError: 451 4.3.0 mail server unavailable")
    assert len(row.detail) == column("detail") and "\n" not in row.detail


# -- retries with backoff, then given up -------------------------------------------------


@pytest.mark.django_db
def test_a_failing_send_is_retried_with_backoff_and_then_given_up(players, failing_mail):
    refused, calls = failing_mail
    mailed(players["bernd"], BAD)
    mailed(players["carl"], "carl@example.org")
    row = invite_bernd(players)
    invitations.do_invite(players["anna"], to="carl")  # goes through despite bernd's failures

    assert send.send_notifications(T0) == 1  # carl's
    assert [m.to for m in mail.outbox] == [["carl@example.org"]]
    row.refresh_from_db()
    assert (row.attempts, row.outcome, row.sent_at) == (1, "", None)
    assert row.next_attempt_at == T0 + send.RETRY_DELAYS[0]
    assert calls == [BAD, "carl@example.org"]  # one try each in a run: the run ended

    now = T0
    for attempt, delay in enumerate(send.RETRY_DELAYS, start=2):
        send.send_notifications(now + delay - dt.timedelta(seconds=1))  # not yet due
        assert calls.count(BAD) == attempt - 1
        now += delay
        send.send_notifications(now)
        assert calls.count(BAD) == attempt
        row.refresh_from_db()
        assert row.attempts == attempt

    assert attempt == send.MAX_ATTEMPTS == 5
    assert now == T0 + dt.timedelta(minutes=1 + 4 + 16 + 64)
    assert (row.outcome, row.sent_at, row.next_attempt_at) == ("failed", now, None)
    assert row.detail.startswith("ConnectionRefusedError") and row.address == BAD

    send.send_notifications(now + dt.timedelta(days=30))  # given up: never tried again
    assert calls.count(BAD) == send.MAX_ATTEMPTS
    assert len(mail.outbox) == 1


@pytest.mark.django_db
def test_a_send_that_works_on_a_later_try_is_sent_once(players, failing_mail):
    refused, calls = failing_mail
    mailed(players["bernd"], BAD)
    row = invite_bernd(players)
    send.send_notifications(T0)
    refused.clear()  # the mail server is back
    assert send.send_notifications(T0 + send.RETRY_DELAYS[0]) == 1
    send.send_notifications(T0 + dt.timedelta(days=1))
    row.refresh_from_db()
    assert (row.outcome, row.attempts, row.address) == ("sent", 2, BAD)
    assert [m.to for m in mail.outbox] == [[BAD]]
    assert not send.email_undeliverable(players["bernd"])


@pytest.mark.django_db
def test_a_row_that_cannot_be_prepared_counts_as_a_try_but_not_against_the_address(
    players, monkeypatch
):
    def broken(notification):
        raise RuntimeError("template missing")

    monkeypatch.setattr(send, "compose", broken)
    mailed(players["bernd"], BAD)
    row = invite_bernd(players)
    try_on_schedule(row)
    assert (row.outcome, row.attempts, row.address) == ("failed", 5, "")
    assert not send.email_undeliverable(players["bernd"])  # the address is not to blame


@pytest.mark.django_db(transaction=True)
def test_two_workers_at_once_try_each_failing_email_once_a_run(postgres_only, players, game):
    mover = mailed(game.to_move, BAD)
    for day in range(12):  # digests: each one has the game to list
        notify.queue(mover, "digest", f"2026-03-{day + 1:02}")
    calls = []
    lock = threading.Lock()

    def send_mail(subject, body, sender, to, headers=None):
        with lock:
            calls.append(to[0])
        raise ConnectionRefusedError("mail server down")

    barrier = threading.Barrier(2)

    def work():
        try:
            barrier.wait()
            send.send_notifications(T0)
        finally:
            connection.close()

    original, send.send_mail = send.send_mail, send_mail
    try:
        threads = [threading.Thread(target=work) for _ in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
    finally:
        send.send_mail = original
    assert len(calls) == 12
    assert set(Notification.objects.values_list("attempts", flat=True)) == {1}


# -- the warning on the player's own profile ---------------------------------------------


def give_up(players):
    """bernd's invitation email fails five times: given up."""
    row = invite_bernd(players)
    now = try_on_schedule(row)
    assert row.outcome == "failed"
    return now


WARNING = "could not be delivered"


@pytest.mark.django_db
def test_the_profile_warns_its_owner_when_emails_to_the_address_fail(
    players, clients, failing_mail
):
    mailed(players["bernd"], BAD)
    assert WARNING not in clients["bernd"].get("/users/bernd/").content.decode()
    give_up(players)
    page = clients["bernd"].get("/users/bernd/").content.decode()
    assert WARNING in page and BAD in page and 'role="alert"' in page
    assert WARNING not in clients["anna"].get("/users/bernd/").content.decode()
    assert WARNING not in Client().get("/users/bernd/").content.decode()
    assert WARNING not in clients["anna"].get("/users/anna/").content.decode()


@pytest.mark.django_db
def test_a_new_address_clears_the_warning(players, clients, failing_mail):
    mailed(players["bernd"], BAD)
    give_up(players)
    confirmed_address(players["bernd"], "bernd@new.example.org")  # replaces the old one
    assert WARNING not in clients["bernd"].get("/users/bernd/").content.decode()


@pytest.mark.django_db
def test_a_later_success_to_the_same_address_clears_the_warning(players, failing_mail):
    refused, _ = failing_mail
    bernd = mailed(players["bernd"], BAD)
    now = give_up(players)
    assert send.email_undeliverable(bernd)
    refused.clear()
    invitations.do_invite(players["carl"], to="bernd")
    assert send.send_notifications(now + dt.timedelta(minutes=1)) == 1
    assert not send.email_undeliverable(bernd)


@pytest.mark.django_db
def test_skipped_emails_do_not_clear_the_warning(players, failing_mail):
    bernd = mailed(players["bernd"], BAD)
    now = give_up(players)
    invitation = invitations.do_invite(players["carl"], to="bernd")
    invitations.do_decline_invitation(invitation.pk, bernd)
    send.send_notifications(now + dt.timedelta(minutes=1))
    assert Notification.objects.filter(outcome="skipped").exists()
    assert send.email_undeliverable(bernd)


# -- the migration's conversion of the old outcome strings -------------------------------


@pytest.mark.django_db
def test_old_outcome_strings_are_split_into_outcome_and_detail(players):
    migration = importlib.import_module(
        "games.migrations.0007_notification_retries_and_worker_heartbeat"
    )
    anna = players["anna"]
    rows = {
        old: Notification.objects.create(user=anna, kind="digest", key=str(i), sent_at=T0)
        for i, old in enumerate(["sent", "skipped: game open", "skipped: nothing wai"])
    }
    pending = Notification.objects.create(user=anna, kind="digest", key="pending")
    for old, row in rows.items():
        Notification.objects.filter(pk=row.pk).update(outcome=old)
    migration.split_outcomes(django_apps, None)
    converted = {
        old: Notification.objects.values_list("outcome", "detail", "attempts").get(pk=row.pk)
        for old, row in rows.items()
    }
    assert converted == {
        "sent": ("sent", "", 1),
        "skipped: game open": ("skipped", "game open", 0),
        "skipped: nothing wai": ("skipped", "nothing wai", 0),
    }
    pending.refresh_from_db()
    assert (pending.outcome, pending.sent_at) == ("", None)
