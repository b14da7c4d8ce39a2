"""Two workers at once: a tournament starts once, a stage advances once; and concurrent
ends of games of one group count every game."""

import datetime as dt
import threading

import pytest
from django.db import connection
from django.utils import timezone

from games.models import Game
from tests.helpers.days import at_once
from tournaments.models import Match, MatchGame, Tournament
from tournaments.services import stages

from .conftest import active_games, end_game, higher_seed_wins, kept, open_tournament, recount

pytestmark = pytest.mark.django_db(transaction=True)


def test_two_workers_start_a_tournament_once(postgres_only, make_players, staff):
    from tournaments.services import entries

    players = make_players(8)
    tournament = open_tournament(staff, "groups_knockout", group_size=4)
    for user in players:
        entries.do_join(tournament.pk, user)
    later = tournament.signup_deadline + dt.timedelta(seconds=1)
    results = at_once(lambda: stages.check_due(later))
    assert sorted(results, key=len) == [{}, {"started": 1}]
    assert Match.objects.filter(tournament=tournament).count() == 2 * 6
    assert MatchGame.objects.filter(match__tournament=tournament).count() == 2 * 6 * 2


def test_games_of_one_group_ending_at_once_all_count(postgres_only, make_players, staff):
    from tournaments.services import entries

    players = make_players(4)
    tournament = open_tournament(staff, "round_robin")
    for user in players:
        entries.do_join(tournament.pk, user)
    stages.do_start(tournament.pk, staff)
    games = active_games(tournament)
    barrier = threading.Barrier(len(games))

    def finish(mg):
        try:
            barrier.wait()
            end_game(mg.game_id, higher_seed_wins(mg))
        finally:
            connection.close()

    threads = [threading.Thread(target=finish, args=(mg,)) for mg in games]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not Game.objects.filter(status="active").exists()
    assert not Match.objects.filter(tournament=tournament).exclude(status="decided").exists()
    assert kept(tournament) == recount(tournament)
    stages.check_due(timezone.now() + dt.timedelta(seconds=1))
    assert Tournament.objects.get(pk=tournament.pk).status == "finished"
