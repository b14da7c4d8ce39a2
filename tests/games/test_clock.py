"""The deadline clock: days per move, the timeout, the extra day (time-machine moves it)."""

import datetime as dt

import pytest
import time_machine
from django.core import mail

from games import jobs
from games.clock import effective_deadline
from games.models import Game
from games.services import commands, invitations

from ..helpers.days import DAY, START, at_once, run_worker, still_running_at
from ..helpers.games import post


@pytest.mark.django_db
def test_a_turn_has_days_per_move_to_run(clocked):
    assert clocked.deadline == START + 5 * DAY
    assert effective_deadline(clocked) == START + 5 * DAY


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
    assert still_running_at(clocked, START + 5 * DAY + dt.timedelta(hours=1), traveller)
    assert not still_running_at(clocked, START + 6 * DAY + dt.timedelta(seconds=1), traveller)
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


@pytest.mark.django_db(transaction=True)
def test_two_workers_at_once_end_a_game_once(postgres_only, players):
    with time_machine.travel(START, tick=False) as traveller:
        invitation = invitations.do_invite(players["anna"], to="bernd", days_per_move=1)
        game = invitations.do_accept_invitation(invitation.pk, players["bernd"])
        traveller.move_to(START + 2 * DAY)
        results = at_once(lambda: jobs.check_deadlines(START + 2 * DAY)["timeouts"])
    assert sorted(results) == [0, 1]
    assert game.events.filter(kind="game_ended").count() == 1
