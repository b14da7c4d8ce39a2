"""Tournaments in tests: players with ratings, a tournament filled and started, games
ended as a test wishes (by the server, or by real moves), and a recount from the games."""

import datetime as dt

import pytest
from django.db import transaction
from django.utils import timezone

from games.models import Game
from games.services.endings import end_by_server
from ratings.models import PlayerRating
from tournaments import formats
from tournaments.models import Entry, Match, MatchGame, Tournament
from tournaments.services import entries, stages


@pytest.fixture
def make_players(django_user_model):
    def make(n, prefix="p", ratings=None):
        users = []
        for i in range(n):
            user = django_user_model.objects.create_user(f"{prefix}{i}", password="x")
            rating = ratings[i] if ratings else 2000 - 5 * i
            if rating is not None:
                PlayerRating.objects.create(user=user, rating=rating, games=5)
            users.append(user)
        return users

    return make


@pytest.fixture
def staff(django_user_model):
    return django_user_model.objects.create_user("organiser", password="x", is_staff=True)


def open_tournament(creator, fmt, **terms):
    terms.setdefault("min_players", 2 if fmt != "groups_knockout" else 3)
    terms.setdefault("max_players", 256 if fmt != "round_robin" else 12)
    return entries.do_create(
        creator,
        name=f"A {fmt}",
        format=fmt,
        signup_deadline=timezone.now() + dt.timedelta(hours=2),
        **terms,
    )


def started(creator, fmt, players, **terms):
    """A tournament of ``players``, started by the worker at its deadline."""
    tournament = open_tournament(creator, fmt, **terms)
    for user in players:
        entries.do_join(tournament.pk, user)
    done = stages.check_due(tournament.signup_deadline + dt.timedelta(seconds=1))
    assert done == {"started": 1}
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.RUNNING
    return tournament


def end_game(game_id, winner_user=None):
    """End an active game by the server: ``winner_user`` wins (None: drawn)."""
    with transaction.atomic():
        game = Game.objects.select_for_update().get(pk=game_id)
        seats = {s.user_id: s.seat for s in game.seats.all()}
        winner = None if winner_user is None else seats[winner_user.pk]
        end_by_server(game, "adjudicated", winner=winner)


def active_games(tournament, stage=None):
    rows = MatchGame.objects.filter(match__tournament=tournament, game__status="active")
    if stage is not None:
        rows = rows.filter(match__stage=stage)
    return list(rows.select_related("match__entry_a__user", "match__entry_b__user", "game"))


def play_stage(tournament, choose):
    """End every active game of the current stage: ``choose(match_game)`` is the user
    who wins it (None: drawn). Then the worker's check (the fallback of the on-commit
    try)."""
    tournament.refresh_from_db()
    for mg in active_games(tournament, tournament.stage):
        end_game(mg.game_id, choose(mg))
    return stages.check_due(timezone.now() + dt.timedelta(seconds=1))


def higher_seed_wins(mg):
    a, b = mg.match.entry_a, mg.match.entry_b
    return (a if a.seed < b.seed else b).user


def recount(tournament):
    """Each group's standings recounted from the finished games themselves."""
    out = {}
    entries_by_id = {e.pk: e for e in Entry.objects.filter(tournament=tournament)}
    for group in {e.group for e in entries_by_id.values() if e.group is not None}:
        results = []
        for match in Match.objects.filter(tournament=tournament, stage=1, group=group):
            assert match.status == Match.Status.DECIDED
            pa = pb = 0
            for mg in MatchGame.objects.filter(match=match).select_related("game"):
                g = mg.game
                if g.status == Game.Status.FINISHED and g.winner_id is not None:
                    won_a = g.winner_id == match.entry_a.user_id
                    pa, pb = pa + (2 if won_a else 0), pb + (0 if won_a else 2)
                else:
                    pa, pb = pa + 1, pb + 1
            if match.decided_by == Match.Decided.FORFEIT:
                winner = match.winner_id
            else:
                winner = None if pa == pb else (match.entry_a_id if pa > pb else match.entry_b_id)
            results.append(formats.Result(match.entry_a_id, match.entry_b_id, pa, pb, winner))
        members = {e.pk: e.seed for e in entries_by_id.values() if e.group == group}
        table = formats.tally(members, results)
        for pk, s in table.items():
            out[pk] = (s.match_points, s.game_points, s.sonneborn_berger, s.played)
    return out


def kept(tournament):
    return {
        e.pk: (e.match_points, e.game_points, e.sonneborn_berger, e.matches_played)
        for e in Entry.objects.filter(tournament=tournament, group__isnull=False)
    }
