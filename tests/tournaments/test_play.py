"""Whole tournaments of each format played through the services: the draw, concurrent
games, real moves, a withdrawal, a timeout, a level knock-out match (its third game, and
the written tie-break), the next stage starting by itself, the final standings."""

import datetime as dt
from collections import Counter

import pytest
from django.utils import timezone

from games import jobs
from games.models import Game
from moderation.services import do_suspend
from tests.helpers.games import play_on
from tournaments.models import Entry, Match, MatchGame, Tournament
from tournaments.services import entries, stages

from .conftest import (
    active_games,
    end_game,
    higher_seed_wins,
    kept,
    play_stage,
    recount,
    started,
)

pytestmark = pytest.mark.django_db


def status(tournament):
    tournament.refresh_from_db()
    return tournament.status


def test_round_robin_with_real_moves(make_players, staff):
    players = make_players(3)
    tournament = started(staff, "round_robin", players)
    games = active_games(tournament)
    # everyone plays everyone twice, all at once, each starting one game of each match
    assert len(games) == 6
    for match in Match.objects.filter(tournament=tournament):
        starters = [mg.starter_id for mg in MatchGame.objects.filter(match=match)]
        assert sorted(starters) == sorted([match.entry_a_id, match.entry_b_id])
    for mg in games:
        assert mg.game.to_move_id == mg.starter.user_id
    for i, mg in enumerate(games):
        play_on(mg.game, seed=i)
    for mg in MatchGame.objects.filter(match__tournament=tournament).select_related("game"):
        game, a_user = mg.game, mg.match.entry_a.user_id
        a_seat = game.seats.get(user_id=a_user).seat
        assert (mg.score_a, mg.score_b) == (
            (game.score0, game.score1)[a_seat],
            (game.score0, game.score1)[1 - a_seat],
        )
        assert mg.points_a == (
            1 if game.winner_id is None else 2 if game.winner_id == a_user else 0
        )
    assert stages.check_due(timezone.now() + dt.timedelta(seconds=1)) == {"finished": 1}
    assert status(tournament) == Tournament.Status.FINISHED
    assert kept(tournament) == recount(tournament)
    board = list(Entry.objects.filter(tournament=tournament).order_by("final_place"))
    assert [e.final_place for e in board] == [1, 2, 3]
    assert tournament.winner_id == board[0].user_id
    assert board[0].match_points >= board[1].match_points >= board[2].match_points
    assert sum(e.game_points for e in board) == 6 * 2  # each game gives 2 half-points
    assert all(e.matches_played == 2 for e in board)


def test_knockout_with_byes_a_third_game_and_the_tie_break(make_players, staff):
    players = make_players(6)  # a bracket of 8: seeds 1 and 2 have byes
    tournament = started(staff, "knockout", players)
    first = Match.objects.filter(tournament=tournament, stage=1).order_by("slot")
    byes = [m for m in first if m.decided_by == Match.Decided.BYE]
    assert sorted(m.winner.seed for m in byes) == [1, 2]
    assert len(active_games(tournament)) == 4  # two matches of two games
    # seed 3 v 6: 1-1, then the third game (started by the higher seed) wins it for 6;
    # seed 4 v 5: 1-1, the third drawn, the tie-break (level scores: the higher seed)
    by_seed = {e.seed: e.user for e in Entry.objects.filter(tournament=tournament)}
    for mg in active_games(tournament):
        winner = mg.match.entry_a.user if mg.number == 1 else mg.match.entry_b.user
        end_game(mg.game_id, winner)
    assert stages.check_due(timezone.now() + dt.timedelta(seconds=1)) == {"third_games": 1}
    thirds = active_games(tournament)
    assert [mg.number for mg in thirds] == [3, 3]
    for mg in thirds:
        higher = min((mg.match.entry_a, mg.match.entry_b), key=lambda e: e.seed)
        assert mg.starter_id == higher.pk
        assert mg.game.to_move_id == higher.user_id
        seeds = {mg.match.entry_a.seed, mg.match.entry_b.seed}
        end_game(mg.game_id, by_seed[6] if seeds == {3, 6} else None)
    assert stages.check_due(timezone.now() + dt.timedelta(seconds=1)) == {"next_stage": 1}
    decided = {
        frozenset((m.entry_a.seed, m.entry_b.seed)): m
        for m in Match.objects.filter(tournament=tournament, stage=1, entry_b__isnull=False)
    }
    assert decided[frozenset((3, 6))].decided_by == Match.Decided.GAMES
    assert decided[frozenset((3, 6))].winner.seed == 6
    assert decided[frozenset((4, 5))].decided_by == Match.Decided.TIEBREAK
    assert decided[frozenset((4, 5))].winner.seed == 4
    # the semi-finals: 1 v 4, 2 v 6 (the bracket's order), started by themselves
    tournament.refresh_from_db()
    assert tournament.stage == 2
    semis = Match.objects.filter(tournament=tournament, stage=2).order_by("slot")
    assert [(m.entry_a.seed, m.entry_b.seed) for m in semis] == [(1, 4), (2, 6)]
    assert play_stage(tournament, higher_seed_wins) == {"next_stage": 1}
    assert play_stage(tournament, higher_seed_wins) == {"finished": 1}
    tournament.refresh_from_db()
    assert tournament.winner == players[0]
    places = {e.seed: e.final_place for e in Entry.objects.filter(tournament=tournament)}
    assert places == {1: 1, 2: 2, 4: 3, 6: 3, 3: 5, 5: 5}
    assert Counter(
        Entry.objects.filter(tournament=tournament).values_list("status", flat=True)
    ) == {
        "playing": 1,
        "out": 5,
    }


def test_groups_then_knockout_start_the_next_stage_by_themselves(
    make_players, staff, django_capture_on_commit_callbacks
):
    players = make_players(12)
    tournament = started(staff, "groups_knockout", players, group_size=4, advance=2)
    groups = Counter(Entry.objects.filter(tournament=tournament).values_list("group", flat=True))
    assert groups == {0: 4, 1: 4, 2: 4}
    # the snake: seeds 1, 6, 7, 12 in the first group
    assert sorted(
        Entry.objects.filter(tournament=tournament, group=0).values_list("seed", flat=True)
    ) == [1, 6, 7, 12]
    assert len(active_games(tournament)) == 3 * 6 * 2
    # the last game's end starts the knock-out right after its commit: no worker
    games = active_games(tournament)
    for mg in games[:-1]:
        end_game(mg.game_id, higher_seed_wins(mg))
    tournament.refresh_from_db()
    assert tournament.stage == 1
    with django_capture_on_commit_callbacks(execute=True):
        end_game(games[-1].game_id, higher_seed_wins(games[-1]))
    tournament.refresh_from_db()
    assert tournament.stage == 2 and tournament.check_at is None
    assert kept(tournament) == recount(tournament)
    places = dict(Entry.objects.filter(tournament=tournament).values_list("seed", "place"))
    assert [places[s] for s in (1, 2, 3)] == [1, 1, 1]
    # six go on: the three winners and the three runners-up, the winners with byes
    ko = Match.objects.filter(tournament=tournament, stage=2)
    playing = [m for m in ko if m.decided_by != Match.Decided.BYE]
    assert len(ko) == 4 and len(playing) == 2
    for m in playing:
        assert m.entry_a.group != m.entry_b.group
    assert Entry.objects.filter(tournament=tournament, status="out").count() == 6
    while status(tournament) == Tournament.Status.RUNNING:
        play_stage(tournament, higher_seed_wins)
    tournament.refresh_from_db()
    assert tournament.winner == players[0]
    final = dict(Entry.objects.filter(tournament=tournament).values_list("seed", "final_place"))
    assert final[1] == 1 and sorted(final.values())[:2] == [1, 2]
    # those out in the groups come after the knock-out's six: thirds share 7th, fourths 10th
    assert sorted(final.values())[6:] == [7, 7, 7, 10, 10, 10]


def test_a_withdrawal_forfeits_the_remaining_matches(make_players, staff):
    players = make_players(4)
    tournament = started(staff, "round_robin", players)
    quitter = players[1]
    # one of the quitter's matches is played out first: quitter won both games
    first = next(
        mg.match
        for mg in active_games(tournament)
        if quitter.pk in (mg.match.entry_a.user_id, mg.match.entry_b.user_id)
    )
    for mg in MatchGame.objects.filter(match=first):
        end_game(mg.game_id, quitter)
    # and in another the quitter won game 1 (game 2 still runs)
    other = next(
        mg
        for mg in active_games(tournament)
        if mg.match_id != first.pk
        and quitter.pk == mg.match.entry_a.user_id
        or mg.match_id != first.pk
        and quitter.pk == mg.match.entry_b.user_id
    )
    end_game(other.game_id, quitter)
    entries.do_withdraw(tournament.pk, quitter)
    entry = Entry.objects.get(tournament=tournament, user=quitter)
    assert entry.status == Entry.Status.WITHDRAWN
    # no game of the quitter runs; each ended was won by the opponent
    running = [
        mg
        for mg in active_games(tournament)
        if quitter.pk in mg.game.seats.values_list("user_id", flat=True)
    ]
    assert running == []
    ended = Game.objects.filter(result_reason="adjudicated", seats__user=quitter)
    # three won by the quitter before; the three running ended, won by the opponents
    assert Counter(w == quitter.pk for w in ended.values_list("winner_id", flat=True)) == {
        True: 3,
        False: 3,
    }
    first.refresh_from_db()
    assert first.decided_by == Match.Decided.GAMES and first.winner_id == entry.pk
    forfeited = Match.objects.filter(tournament=tournament, decided_by=Match.Decided.FORFEIT)
    assert forfeited.count() == 2 and all(m.winner_id != entry.pk for m in forfeited)
    with pytest.raises(Exception) as refused:
        entries.do_withdraw(tournament.pk, quitter)
    assert refused.value.code == "already_withdrawn"
    play_stage(tournament, higher_seed_wins)
    assert status(tournament) == Tournament.Status.FINISHED
    assert kept(tournament) == recount(tournament)
    entry.refresh_from_db()
    assert entry.match_points == 2 and entry.matches_played == 3


def test_a_timeout_is_a_lost_game_and_the_worker_finishes_the_stage(make_players, staff):
    players = make_players(2)
    tournament = started(staff, "knockout", players, days_per_move=1)
    games = active_games(tournament)
    assert len(games) == 2
    later = timezone.now() + dt.timedelta(days=3)
    assert jobs.check_deadlines(later)["timeouts"] == 2
    # both games lost on time by their starter: level, a third game
    assert jobs.JOBS["tournaments"](later) == {"third_games": 1}
    third = active_games(tournament)[0]
    assert third.number == 3
    late = third.game.to_move_id
    assert jobs.check_deadlines(later + dt.timedelta(days=3))["timeouts"] == 1
    assert jobs.JOBS["tournaments"](later + dt.timedelta(days=3)) == {"finished": 1}
    tournament.refresh_from_db()
    assert tournament.winner_id != late
    assert Game.objects.filter(result_reason="timeout").count() == 3


def test_a_suspended_player_is_withdrawn(make_players, staff, moderator):
    players = make_players(3)
    tournament = started(staff, "round_robin", players)
    signup = started_open = entries.do_create(
        staff,
        name="Next",
        format="knockout",
        signup_deadline=timezone.now() + dt.timedelta(days=1),
        min_players=2,
    )
    entries.do_join(started_open.pk, players[2])
    do_suspend(players[2].pk, moderator, "abuse", days=3)
    entry = Entry.objects.get(tournament=tournament, user=players[2])
    assert entry.status == Entry.Status.WITHDRAWN
    theirs = Match.objects.filter(tournament=tournament).exclude(
        entry_a__user=players[0], entry_b__user=players[1]
    )
    assert {m.decided_by for m in theirs} == {Match.Decided.FORFEIT}
    assert not Entry.objects.filter(tournament=signup).exists()
    play_stage(tournament, higher_seed_wins)
    assert status(tournament) == Tournament.Status.FINISHED
    assert kept(tournament) == recount(tournament)
    assert Entry.objects.get(tournament=tournament, user=players[2]).final_place == 3


def test_a_staff_cancel_annuls_the_running_games(make_players, staff):
    players = make_players(4)
    tournament = started(staff, "knockout", players)
    games = active_games(tournament)
    end_game(games[0].game_id, players[0])
    entries.do_cancel(tournament.pk, staff)
    assert status(tournament) == Tournament.Status.CANCELLED
    statuses = Counter(
        Game.objects.filter(tournament_game__match__tournament=tournament).values_list(
            "status", flat=True
        )
    )
    assert statuses == {"finished": 1, "annulled": 3}
    assert Entry.objects.filter(tournament=tournament).count() == 4
    assert stages.check_due(timezone.now() + dt.timedelta(days=1)) == {}


def test_too_few_at_the_deadline_cancel(make_players, staff):
    players = make_players(1)
    tournament = entries.do_create(
        staff,
        name="Lonely",
        format="knockout",
        signup_deadline=timezone.now() + dt.timedelta(hours=1, minutes=1),
        min_players=2,
    )
    entries.do_join(tournament.pk, players[0])
    assert stages.check_due(timezone.now()) == {}  # not yet
    assert stages.check_due(timezone.now() + dt.timedelta(hours=2)) == {"cancelled": 1}
    assert status(tournament) == Tournament.Status.CANCELLED
    assert Entry.objects.filter(tournament=tournament).count() == 1


def test_the_tie_break_counts_the_scores_of_the_matchs_games(make_players, staff, monkeypatch):
    # the games' server seeds fixed, so that the three drawn games' scores are known to
    # differ in total (with fresh seeds they are level now and then, and the seed decides)
    seeds = iter(f"{n:064x}" for n in range(1, 100))
    monkeypatch.setattr("games.services.commitments.new_server_seed", lambda: next(seeds))
    players = make_players(2)
    tournament = started(staff, "knockout", players)
    for mg in active_games(tournament):
        # each game half played, then drawn by the server: the scores so far stand
        play_on(mg.game, seed=mg.number, until_version=40)
        end_game(mg.game_id, None)
    stages.check_due(timezone.now() + dt.timedelta(seconds=1))
    (third,) = active_games(tournament)
    play_on(third.game, seed=7, until_version=40)
    end_game(third.game_id, None)
    match = Match.objects.get(tournament=tournament)
    assert match.decided_by == Match.Decided.TIEBREAK and match.points_a == match.points_b == 3
    totals = [0, 0]
    for mg in MatchGame.objects.filter(match=match).select_related("game"):
        seat_a = mg.game.seats.get(user_id=match.entry_a.user_id).seat
        scores = (mg.game.score0, mg.game.score1)
        assert (mg.score_a, mg.score_b) == (scores[seat_a], scores[1 - seat_a])
        totals[0] += mg.score_a
        totals[1] += mg.score_b
    assert totals[0] != totals[1]  # the scores decide, not the seed
    assert match.winner == (match.entry_a if totals[0] > totals[1] else match.entry_b)
    assert stages.check_due(timezone.now() + dt.timedelta(seconds=1)) == {"finished": 1}
    tournament.refresh_from_db()
    assert tournament.winner_id == match.winner.user_id
