"""Emails the worker sends: your turn, reminders, the daily digest, invitations."""

import datetime as dt

import pytest
from django.core import mail
from django.utils import timezone

from games.models import Game, Notification
from games.notify import queue as notify
from games.notify import send
from games.services import commands, invitations, presence

from ...helpers.accounts import confirmed_address
from ...helpers.choices import choose
from ...helpers.days import DAY, START, at_once, run_worker


@pytest.mark.django_db
def test_one_reminder_per_turn_when_a_fifth_of_the_time_is_left(clocked, traveller):
    traveller.move_to(START + 3 * DAY)
    run_worker()
    assert mail.outbox == []
    traveller.move_to(START + 4 * DAY + dt.timedelta(hours=1))  # 23 hours left of 120
    run_worker()
    run_worker()
    assert len(mail.outbox) == 1
    assert mail.outbox[0].to == [clocked.to_move.email]
    assert "Reminder" in mail.outbox[0].subject
    assert Notification.objects.filter(kind="reminder").count() == 1


@pytest.mark.django_db
def test_no_reminder_for_a_player_who_turned_them_off(clocked, traveller):
    choose(clocked.to_move, email_reminders=False)
    traveller.move_to(START + 4 * DAY + dt.timedelta(hours=12))
    run_worker()
    assert mail.outbox == []


@pytest.mark.django_db
def test_your_turn_email_once_per_turn_and_not_while_the_game_is_open(clocked, players):
    mover = clocked.to_move
    turn = Notification.objects.create(
        user=mover, game=clocked, kind="turn", key=f"{clocked.pk}:{clocked.turn_number}"
    )
    notify.queue(mover, "turn", turn.key, clocked)  # a second queueing is a no-op
    presence.socket_opened(clocked.pk, mover)
    run_worker()
    turn.refresh_from_db()
    assert (turn.outcome, turn.detail) == ("skipped", "game open") and mail.outbox == []
    presence.socket_closed(clocked.pk, mover)
    Notification.objects.create(user=mover, game=clocked, kind="turn", key="again")
    run_worker()
    assert [m.to for m in mail.outbox] == [[mover.email]]
    assert "Your turn" in mail.outbox[0].subject


@pytest.mark.django_db
def test_a_socket_left_open_by_a_dead_server_does_not_hold_back_emails(clocked, players):
    mover = clocked.to_move
    presence.socket_opened(clocked.pk, mover, now=timezone.now() - dt.timedelta(minutes=10))
    Notification.objects.create(user=mover, game=clocked, kind="turn", key="k")
    run_worker()
    assert [m.to for m in mail.outbox] == [[mover.email]]


@pytest.mark.django_db
def test_a_move_queues_the_your_turn_email_for_the_next_player(clocked):
    mover = clocked.to_move
    commands.do_command(clocked.pk, mover, {"type": "roll"}, clocked.version, "a")
    game = Game.objects.get(pk=clocked.pk)
    if game.rules_state().phase == "direction":
        left = {"type": "direction", "one_at": "left"}
        commands.do_command(clocked.pk, mover, left, game.version, "b")
        game = Game.objects.get(pk=clocked.pk)
    commands.do_command(clocked.pk, mover, {"type": "place", "die": 0}, game.version, "c")
    game = Game.objects.get(pk=clocked.pk)
    assert Notification.objects.filter(kind="turn", user=game.to_move).count() == 1
    run_worker()
    assert [m.to for m in mail.outbox] == [[game.to_move.email]]


@pytest.mark.django_db
def test_the_digest_lists_exactly_the_waiting_games(traveller, players):
    anna, bernd, carl = players["anna"], players["bernd"], players["carl"]
    confirmed_address(anna)
    choose(anna, daily_digest=True, email_on_turn=True)
    games = [
        invitations.do_accept_invitation(invitations.do_invite(o, to="anna").pk, anna)
        for o in (bernd, carl, bernd)
    ]
    waiting = sorted(g.pk for g in Game.objects.filter(to_move=anna))
    not_waiting = sorted(g.pk for g in games if g.pk not in waiting)
    assert not Notification.objects.filter(user=anna, kind="turn").exists()  # digest instead
    run_worker()
    assert not Notification.objects.filter(user=anna, kind="digest").exists()  # not yet 07:00
    traveller.move_to(START + DAY)  # the next morning (anna's zone is UTC)
    run_worker()
    digests = [m for m in mail.outbox if m.to == ["anna@example.org"]]
    if not waiting:
        assert digests == []
        return
    assert len(digests) == 1
    body = digests[0].body
    for pk in waiting:
        assert f"/games/{pk}/" in body
    for pk in not_waiting:
        assert f"/games/{pk}/" not in body
    run_worker()
    assert len([m for m in mail.outbox if m.to == ["anna@example.org"]]) == 1  # once a day
    traveller.move_to(START + 2 * DAY)
    run_worker()
    assert len([m for m in mail.outbox if m.to == ["anna@example.org"]]) == 2


@pytest.mark.django_db
def test_invitations_are_emailed_to_players_who_want_email(players):
    bernd, carl = players["bernd"], players["carl"]
    confirmed_address(bernd)  # invitation emails are on for a new player
    confirmed_address(carl)
    choose(carl, email_invitations=False)
    invitations.do_invite(players["anna"], to="bernd")
    invitations.do_invite(players["bernd"], to="carl")  # carl wants no invitation email
    run_worker()
    assert [m.to for m in mail.outbox] == [["bernd@example.org"]]
    assert "anna invites you" in mail.outbox[0].subject


@pytest.mark.django_db(transaction=True)
def test_two_workers_at_once_send_each_email_once(postgres_only, players, django_user_model):
    bernd = players["bernd"]
    confirmed_address(bernd)
    choose(bernd, email_on_turn=True)
    for i in range(15):  # from 15 players: one may only have a few invitations open
        sender = django_user_model.objects.create_user(f"sender{i}")
        invitations.do_invite(sender, to="bernd")  # each queues one email
    assert Notification.objects.filter(sent_at__isnull=True).count() == 15
    counts = at_once(send.send_notifications)
    assert sum(counts) == 15 and all(counts)  # both workers took a share
    assert len(mail.outbox) == 15
    assert not Notification.objects.filter(sent_at__isnull=True).exists()
