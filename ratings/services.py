"""Rating a finished game: called by ``games.services`` inside the transaction that ends it.

Each rated game is one Glicko-2 rating period for both players, and both are rated
from their ratings *before* the game (grown by any idle months, ``rating_as_of``). A
game with no winner (equal points) is a draw.
"""

from __future__ import annotations

import uuid
from datetime import timedelta

from django.core.cache import cache
from django.db import transaction
from django.utils import timezone

from . import glicko2
from .chart import extend_series
from .models import PlayerRating, RatingChange

# The version of the ranking's cached rows (``queries.ranking_page_rows``): a new one
# whenever a rating, or who may be ranked, changes.
RANKING_VERSION = "ratings:ranking-version"

# A month without a rated game counts as one Glicko-2 rating period without games: the
# deviation grows (glicko2.idle), so a player who comes back moves faster at first.
IDLE_PERIOD = timedelta(days=30)
MAX_IDLE_PERIODS = 120  # ten years: the deviation is back at a new player's long before


def rating_as_of(row: PlayerRating, now) -> glicko2.Rating:
    """The player's rating at ``now``: the stored one, grown by each idle month since the
    last rated game."""
    rating = row.as_glicko()
    if row.games and row.updated_at is not None and now > row.updated_at:
        for _ in range(min((now - row.updated_at) // IDLE_PERIOD, MAX_IDLE_PERIODS)):
            rating = glicko2.idle(rating)
    return rating


def _locked_rating(user_id) -> PlayerRating:
    PlayerRating.objects.get_or_create(user_id=user_id)
    return PlayerRating.objects.select_for_update().get(user_id=user_id)


def scores_of(game, players) -> list[float]:
    """Each player's score by seat: 1 for the winner, 0 for the loser, 0.5 each for a draw."""
    if game.winner_id is None:
        return [0.5, 0.5]
    return [1.0 if player.pk == game.winner_id else 0.0 for player in players]


def apply_result(game, players) -> list[RatingChange]:
    """Rate a finished game between ``players`` (by seat). A second call does nothing.

    Locks both players' ``PlayerRating`` rows (created at need) in the order of their
    user ids, so that two games ending at once cannot deadlock.
    """
    if len(players) != 2 or players[0].pk == players[1].pk:
        raise ValueError("a rated game has two different players")
    with transaction.atomic():
        locked = {uid: _locked_rating(uid) for uid in sorted(p.pk for p in players)}
        if RatingChange.objects.filter(game_id=game.pk).exists():
            return []
        ratings = [locked[p.pk] for p in players]
        now = game.finished_at or timezone.now()
        before = [rating_as_of(r, now) for r in ratings]
        scores = scores_of(game, players)
        changes = []
        for seat, (row, player) in enumerate(zip(ratings, players, strict=True)):
            score = scores[seat]
            after = glicko2.rate(before[seat], [(before[1 - seat], score)])
            changes.append(
                RatingChange(
                    game_id=game.pk,
                    user=player,
                    opponent=players[1 - seat],
                    score=score,
                    rating_before=before[seat].rating,
                    deviation_before=before[seat].deviation,
                    volatility_before=before[seat].volatility,
                    rating_after=after.rating,
                    deviation_after=after.deviation,
                    volatility_after=after.volatility,
                )
            )
            row.rating, row.deviation, row.volatility = (
                after.rating,
                after.deviation,
                after.volatility,
            )
            row.series = extend_series(row.series, after.rating, start=before[seat].rating)
            row.games += 1
            if score == 1:
                row.wins += 1
            elif score == 0:
                row.losses += 1
            else:
                row.draws += 1
        RatingChange.objects.bulk_create(changes)
        for row in ratings:
            row.save()
        ranking_changed()
    return changes


def ranking_changed() -> None:
    """The ranking's cached rows are stale: a rating changed, or a player was suspended,
    let back or deactivated. Bumped now and again once the transaction commits, so that
    rows a reader built from what was there before the commit are never used after it."""
    cache.set(RANKING_VERSION, uuid.uuid4().hex, None)
    transaction.on_commit(lambda: cache.set(RANKING_VERSION, uuid.uuid4().hex, None))
