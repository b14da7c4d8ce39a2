"""Play across days: the clock moves (time-machine) and the worker's jobs run."""

import datetime as dt
import threading

import pytest
import time_machine
from django.core import mail
from django.db import connection
from django.utils import timezone

from accounts.holidays import do_declare_holiday
from games import jobs
from games.access import seating
from games.clock import effective_deadline
from games.models import Game, Notification
from games.serializers import game_json
from games.services import commands, invitations, notify, presence

from .helpers import post

START = dt.datetime(2026, 3, 2, 12, 0, tzinfo=dt.UTC)
DAY = dt.timedelta(days=1)


@pytest.fixture
def traveller():
    with time_machine.travel(START, tick=False) as traveller:
        yield traveller


@pytest.fixture
def clocked(traveller, players):
    """A 5-days-per-move game between anna and bernd (with emails), started at START."""
    for user in players.values():
        user.email = f"{user.username}@example.org"
        user.email_on_turn = True
        user.save()
    invitation = invitations.do_invite(players["anna"], to="bernd", days_per_move=5)
    game = invitations.do_accept_invitation(invitation.pk, players["bernd"])
    game.refresh_from_db()
    mail.outbox.clear()
    Notification.objects.all().delete()
    return game


def run_worker(now=None):
    return jobs.run_all(now or timezone.now())


@pytest.mark.django_db
def test_a_turn_has_days_per_move_to_run(clocked):
    assert clocked.deadline == START + 5 * DAY
    assert effective_deadline(clocked) == START + 5 * DAY


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
    clocked.to_move.email_reminders = False
    clocked.to_move.save()
    traveller.move_to(START + 4 * DAY + dt.timedelta(hours=12))
    run_worker()
    assert mail.outbox == []


@pytest.mark.django_db
def test_a_timeout_ends_the_game_for_the_player_to_move_and_both_see_it(
    clocked, traveller, players, clients
):
    late = clocked.to_move
    other = next(u for u in players.values() if u.pk != late.pk and u.username != "carl")
    traveller.move_to(START + 5 * DAY + dt.timedelta(seconds=1))
    result = run_worker()
    assert result["deadlines"]["timeouts"] == 1
    clocked.refresh_from_db()
    assert clocked.status == "finished" and clocked.result_reason == "timeout"
    assert clocked.winner == other
    for user, winner in ((late, "opponent"), (other, "me")):
        view = clients[user.username].get(f"/api/games/{clocked.pk}/").json()["view"]
        assert view["result"]["reason"] == "timeout" and view["result"]["winner"] == winner
    assert sorted(m.to[0] for m in mail.outbox) == sorted([late.email, other.email])
    assert clocked.events.order_by("-seq").first().payload["reason"] == "timeout"
    run_worker()  # a second run ends nothing twice and sends nothing twice
    assert len(mail.outbox) == 2
    assert clocked.events.filter(kind="game_ended").count() == 1


@pytest.mark.django_db
def test_the_waiting_player_can_give_one_extra_day(clocked, traveller, players, clients):
    mover = clocked.to_move.username
    waiter = "bernd" if mover == "anna" else "anna"
    assert post(clients[mover], f"/api/games/{clocked.pk}/extend/").status_code == 403
    response = post(clients[waiter], f"/api/games/{clocked.pk}/extend/")
    assert response.status_code == 200
    assert response.json()["clock"]["deadline"] == (START + 6 * DAY).isoformat()
    assert response.json()["clock"]["can_extend"] is False
    again = post(clients[waiter], f"/api/games/{clocked.pk}/extend/")
    assert again.status_code == 409 and again.json()["error"]["code"] == "already_extended"
    assert post(clients["carl"], f"/api/games/{clocked.pk}/extend/").status_code == 403
    traveller.move_to(START + 5 * DAY + dt.timedelta(hours=1))
    run_worker()
    clocked.refresh_from_db()
    assert clocked.status == "active"
    traveller.move_to(START + 6 * DAY + dt.timedelta(seconds=1))
    run_worker()
    clocked.refresh_from_db()
    assert clocked.result_reason == "timeout"


@pytest.mark.django_db
def test_a_new_turn_gets_a_fresh_clock_and_a_fresh_extra_day(clocked, traveller):
    mover = clocked.to_move
    traveller.move_to(START + 2 * DAY)
    version = clocked.version
    commands.do_command(clocked.pk, mover, {"type": "roll"}, version, "r1")
    state = Game.objects.get(pk=clocked.pk).rules_state()
    command = (
        {"type": "direction", "one_at": "left"}
        if state.phase == "direction"
        else {"type": "place", "die": 0}
    )
    commands.do_command(clocked.pk, mover, command, version + 1, "r2")
    game = Game.objects.get(pk=clocked.pk)
    if game.to_move == mover:  # the direction was chosen: now place
        commands.do_command(clocked.pk, mover, {"type": "place", "die": 0}, game.version, "r3")
        game = Game.objects.get(pk=clocked.pk)
    assert game.to_move != mover
    assert game.turn_started_at == START + 2 * DAY
    assert game.deadline == START + 7 * DAY and game.extended is False


@pytest.mark.django_db
def test_a_holiday_pauses_the_deadline(clocked, traveller):
    mover = clocked.to_move
    do_declare_holiday(mover, dt.date(2026, 3, 4), dt.date(2026, 3, 6))  # 3 days away
    clocked.refresh_from_db()
    assert effective_deadline(clocked) == START + 8 * DAY
    traveller.move_to(START + 7 * DAY)
    run_worker()
    clocked.refresh_from_db()
    assert clocked.status == "active"
    traveller.move_to(START + 8 * DAY + dt.timedelta(seconds=1))
    run_worker()
    clocked.refresh_from_db()
    assert clocked.result_reason == "timeout"


@pytest.mark.django_db
def test_opponents_see_a_holiday_on_the_board(clocked, players):
    mover = clocked.to_move
    other = next(u for u in players.values() if u.pk != mover.pk and u.username != "carl")
    do_declare_holiday(mover, dt.date(2026, 3, 10), dt.date(2026, 3, 12))
    clock = game_json(seating(clocked, other))["clock"]
    assert clock["away"]["opponent"] == [{"start": "2026-03-10", "end": "2026-03-12"}]
    assert clock["away"]["me"] == []


@pytest.mark.django_db
def holiday(client, start, end):
    return post(client, "/api/holidays/", {"start": start, "end": end})


def test_the_holiday_allowance_is_30_days_a_calendar_year(traveller, players, clients):
    anna = clients["anna"]
    ok = post(anna, "/api/holidays/", {"start": "2026-04-01", "end": "2026-04-20"})
    assert ok.status_code == 201 and ok.json()["days"] == 20
    too_many = post(anna, "/api/holidays/", {"start": "2026-06-01", "end": "2026-06-11"})
    assert too_many.status_code == 400 and too_many.json()["error"]["code"] == "holiday_allowance"
    assert holiday(anna, "2026-06-01", "2026-06-10").status_code == 201
    # Across New Year: the days count in the year they fall in.
    assert holiday(anna, "2026-12-31", "2027-01-29").status_code == 400
    assert holiday(anna, "2027-01-01", "2027-01-30").status_code == 201
    overlap = post(anna, "/api/holidays/", {"start": "2026-04-20", "end": "2026-04-21"})
    assert overlap.status_code == 409
    today = post(anna, "/api/holidays/", {"start": "2026-03-02", "end": "2026-03-03"})
    assert today.json()["error"]["code"] == "holiday_not_in_advance"
    assert post(anna, "/api/holidays/", {"start": "soon", "end": "2026-03-03"}).status_code == 400
    listed = anna.get("/api/holidays/").json()["holidays"]
    assert [h["days"] for h in listed] == [20, 10, 30]
    cancel = post(anna, f"/api/holidays/{listed[0]['id']}/cancel/")
    assert cancel.status_code == 200
    assert holiday(anna, "2026-07-01", "2026-07-20").status_code == 201


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
    anna.email, anna.daily_digest, anna.email_on_turn = "anna@example.org", True, True
    anna.save()
    games = [
        invitations.do_accept_invitation(invitations.do_invite(o, to="anna").pk, anna)
        for o in (bernd, carl, bernd)
    ]
    waiting = sorted(g.pk for g in Game.objects.filter(to_move=anna))
    not_waiting = sorted(g.pk for g in games if g.pk not in waiting)
    assert not Notification.objects.filter(user=anna, kind="turn").exists()  # digest instead
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
    traveller.move_to(START + DAY)
    run_worker()
    assert len([m for m in mail.outbox if m.to == ["anna@example.org"]]) == 2


@pytest.mark.django_db
def test_invitations_are_emailed_to_players_who_want_email(players):
    bernd = players["bernd"]
    bernd.email, bernd.email_on_turn = "bernd@example.org", True
    bernd.save()
    invitations.do_invite(players["anna"], to="bernd")
    invitations.do_invite(players["bernd"], to="carl")  # carl wants no email
    run_worker()
    assert [m.to for m in mail.outbox] == [["bernd@example.org"]]
    assert "anna invites you" in mail.outbox[0].subject


@pytest.mark.django_db(transaction=True)
def test_two_workers_at_once_send_each_email_once(postgres_only, players, django_user_model):
    bernd = players["bernd"]
    bernd.email, bernd.email_on_turn = "bernd@example.org", True
    bernd.save()
    for i in range(15):  # from 15 players: one may only have a few invitations open
        sender = django_user_model.objects.create_user(f"sender{i}")
        invitations.do_invite(sender, to="bernd")  # each queues one email
    assert Notification.objects.filter(sent_at__isnull=True).count() == 15
    barrier = threading.Barrier(2)
    counts = []

    def work():
        try:
            barrier.wait()
            counts.append(jobs.send_notifications())
        finally:
            connection.close()

    threads = [threading.Thread(target=work) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert sum(counts) == 15 and all(counts)  # both workers took a share
    assert len(mail.outbox) == 15
    assert not Notification.objects.filter(sent_at__isnull=True).exists()


@pytest.mark.django_db(transaction=True)
def test_two_workers_at_once_end_a_game_once(postgres_only, players):
    with time_machine.travel(START, tick=False) as traveller:
        invitation = invitations.do_invite(players["anna"], to="bernd", days_per_move=1)
        game = invitations.do_accept_invitation(invitation.pk, players["bernd"])
        traveller.move_to(START + 2 * DAY)
        barrier = threading.Barrier(2)
        results = []

        def work():
            try:
                barrier.wait()
                results.append(jobs.check_deadlines(START + 2 * DAY)["timeouts"])
            finally:
                connection.close()

        threads = [threading.Thread(target=work) for _ in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
    assert sorted(results) == [0, 1]
    assert game.events.filter(kind="game_ended").count() == 1
