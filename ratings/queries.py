"""What the ranking page and a player's profile show of the ratings."""

from __future__ import annotations

import uuid

from django.core.cache import cache
from django.db.models import BooleanField, Case, Q, Value, When
from django.utils import timezone

from .chart import rating_chart, series_ratings
from .models import PROVISIONAL_DEVIATION, PlayerRating, RatingChange
from .services import RANKING_VERSION

RANKING_SIZE = 100
RECENT_GAMES = 5
# How long the ranking's rows are kept at most: a suspension that runs out changes who is
# ranked without any write to say so.
RANKING_TTL = 300


def ranking(size: int = RANKING_SIZE) -> list[PlayerRating]:
    """The best players by rating, in one query: established ratings first, then provisional
    ones (deviation above ``PROVISIONAL_DEVIATION``); only players with a rated game who can
    play (active, not suspended)."""
    now = timezone.now()
    return list(
        PlayerRating.objects.filter(games__gte=1, user__is_active=True)
        .filter(Q(user__suspended_until__isnull=True) | Q(user__suspended_until__lte=now))
        .select_related("user")
        .annotate(
            is_provisional=Case(
                When(deviation__gt=PROVISIONAL_DEVIATION, then=Value(True)),
                default=Value(False),
                output_field=BooleanField(),
            )
        )
        .order_by("is_provisional", "-rating", "user__username")[:size]
    )


def ranking_page_rows() -> dict:
    """``ranking_rows(ranking())`` from the cache, under the version the last change of a
    rating or of a player's standing set (``services.ranking_changed``)."""
    version = cache.get(RANKING_VERSION)
    if version is None:
        cache.add(RANKING_VERSION, uuid.uuid4().hex, None)
        version = cache.get(RANKING_VERSION)
    key = f"ratings:ranking:{version}"
    rows = cache.get(key)
    if rows is None:
        rows = ranking_rows(ranking())
        cache.set(key, rows, RANKING_TTL)
    return rows


def ranking_rows(players: list[PlayerRating]) -> dict:
    """The ranking split for the page: ranked (established) and provisional rows."""
    rows = {"ranked": [], "provisional": []}
    for player in players:
        row = {
            "username": player.user.username,
            # a computer opponent's level ("bot" for a bot account, never rated), "" for a person
            "bot": player.user.program_mark,
            "rating": round(player.rating),
            "interval": round(2 * player.deviation),
            "games": player.games,
            "wins": player.wins,
            "draws": player.draws,
            "losses": player.losses,
            "win_rate": round(100 * player.wins / player.games) if player.games else 0,
        }
        if player.is_provisional:
            rows["provisional"].append(row)
        else:
            rows["ranked"].append({**row, "rank": len(rows["ranked"]) + 1})
    return rows


def profile_rating(person) -> dict:
    """A player's current rating, the history chart and the last rated games: two queries
    whatever the number of games."""
    current = PlayerRating.objects.filter(user=person, games__gte=1).first()
    if current is None:
        return {"rating": None, "chart": None, "recent": []}
    # the line starts where the player started (1500 for everyone), then one point a game,
    # downsampled to a bounded number of points (chart.extend_series)
    history = series_ratings(current.series)
    recent = (
        RatingChange.objects.filter(user=person)
        .select_related("opponent")
        .order_by("-created_at", "-id")[:RECENT_GAMES]
    )
    return {
        "rating": current,
        "chart": rating_chart(history),
        "recent": list(recent),
    }


def rating_changes(game) -> dict | None:
    """What a finished rated game did to each player's rating, by user id; None for a
    casual game, a game in progress, or one that ended without a result (no query)."""
    if not game.rated or game.status != game.Status.FINISHED:
        return None
    return {c.user_id: c for c in RatingChange.objects.filter(game_id=game.pk)}


def game_ratings(game, me_id, opponent_id, changes=None) -> dict | None:
    """Both ratings before and after the game, by side (rounded to whole points), or None.

    ``changes``: ``rating_changes(game)`` when the caller has read them already."""
    changes = rating_changes(game) if changes is None else changes
    if not changes or me_id not in changes or opponent_id not in changes:
        return None
    return {side: _change(changes[uid]) for side, uid in (("me", me_id), ("opponent", opponent_id))}


def _change(change: RatingChange) -> dict:
    before, after = round(change.rating_before), round(change.rating_after)
    return {"before": before, "after": after, "change": after - before}


def shown_rating(user_id) -> int | None:
    """A player's rating as the site shows it (whole points), or None before their first
    rated game: one row on its primary key's index."""
    rating = (
        PlayerRating.objects.filter(user_id=user_id, games__gte=1)
        .values_list("rating", flat=True)
        .first()
    )
    return None if rating is None else round(rating)


def current_ratings(user_ids) -> dict:
    """Each player's rating now, by id, for a list of games: ``{"rating", "provisional"}``,
    in one query on the ratings' primary key; a player with no rated game has none."""
    rows = PlayerRating.objects.filter(user_id__in=set(user_ids)).only(
        "user_id", "rating", "deviation"
    )
    return {
        row.user_id: {
            "rating": round(row.rating),
            "provisional": row.deviation > PROVISIONAL_DEVIATION,
        }
        for row in rows
    }
