"""What the previous release leaves undone during an upgrade is mended when the worker
starts: games it ended get their seats' end, their players' records and their analysis;
turns it began with no due time get one. Once, whatever the number of runs."""

import pytest
from django.core.management import call_command
from django.db import transaction
from django.utils import timezone

from games.access import access_game
from games.models import Game, GameAnalysis, PlayerRecord, Seat
from games.services import invitations, upgrades
from games.services.endings import end_by_server

pytestmark = pytest.mark.django_db


def new_game(players, a="anna", b="bernd"):
    invitation = invitations.do_invite(players[a], to=b, rated=False)
    return invitations.do_accept_invitation(invitation.pk, players[b])


def end(game, reason="adjudicated", winner=0):
    with transaction.atomic():
        locked = access_game(None, game.pk, lock=True).game
        end_by_server(locked, reason, winner, timezone.now())


def as_the_previous_release_left_it(game):
    """The game ended as the previous release ends one: only the game's row says so."""
    Seat.objects.filter(game=game).update(ended_at=None)
    PlayerRecord.objects.all().delete()
    GameAnalysis.objects.filter(game=game).delete()


def test_a_game_the_previous_release_ended_is_counted_listed_and_queued_once(players):
    won, aborted, running = new_game(players), new_game(players), new_game(players)
    end(won, winner=1)
    end(aborted, reason="annulled", winner=None)
    for game in (won, aborted):
        as_the_previous_release_left_it(game)

    assert upgrades.catch_up()["ended"] == 2
    assert upgrades.catch_up()["ended"] == 0  # a second run finds nothing

    for game in (won, aborted):
        game.refresh_from_db()
        assert set(Seat.objects.filter(game=game).values_list("ended_at", flat=True)) == {
            game.finished_at
        }
    assert list(Seat.objects.filter(game=running).values_list("ended_at", flat=True)) == [
        None,
        None,
    ]
    records = {r.user.username: (r.played, r.won, r.lost) for r in PlayerRecord.objects.all()}
    assert records == {"anna": (1, 0, 1), "bernd": (1, 1, 0)}  # the annulled game counts not
    assert list(GameAnalysis.objects.values_list("game_id", flat=True)) == [won.pk]


def test_a_turn_begun_with_no_due_time_gets_one(players):
    game = new_game(players)
    scheduled = Game.objects.get(pk=game.pk).due_at
    assert scheduled is not None
    Game.objects.filter(pk=game.pk).update(due_at=None)

    assert upgrades.catch_up()["scheduled"] == 1
    assert Game.objects.get(pk=game.pk).due_at == scheduled
    assert upgrades.catch_up()["scheduled"] == 0


@pytest.mark.django_db(transaction=True)
def test_the_worker_catches_up_as_it_starts(players):
    game = new_game(players)
    end(game, winner=0)
    as_the_previous_release_left_it(game)

    call_command("run_worker", "--once", "--job", "deadlines")

    assert None not in set(Seat.objects.filter(game=game).values_list("ended_at", flat=True))
    assert PlayerRecord.objects.get(user=players["anna"]).won == 1
