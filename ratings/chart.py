"""The rating history as the points of a small SVG line chart (pure: no Django)."""

from __future__ import annotations

from dataclasses import dataclass

# The stored history keeps between SERIES_POINTS and twice as many points, evenly spaced.
SERIES_POINTS = 100

WIDTH = 600
HEIGHT = 160
PAD_LEFT = 48  # room for the min / max labels
PAD = 10


@dataclass(frozen=True)
class Chart:
    width: int
    height: int
    points: str  # the polyline's "x,y x,y …", one pair per rating
    coords: tuple[tuple[float, float], ...]
    low: int  # the lowest and highest rating shown, rounded
    high: int
    low_y: float  # where their labels go
    high_y: float
    first: int
    last: int


def rating_chart(ratings: list[float], width: int = WIDTH, height: int = HEIGHT) -> Chart | None:
    """Scale the ratings (oldest first) into the chart box; None when there are none.

    x runs evenly over the games (one point per rated game); y from the highest rating at
    the top to the lowest at the bottom (a flat history is drawn across the middle).
    """
    if not ratings:
        return None
    low, high = min(ratings), max(ratings)
    left, right = PAD_LEFT, width - PAD
    top, bottom = PAD, height - PAD
    span = high - low
    step = (right - left) / (len(ratings) - 1) if len(ratings) > 1 else 0.0
    coords = []
    for i, rating in enumerate(ratings):
        x = left + i * step if len(ratings) > 1 else (left + right) / 2
        y = (top + bottom) / 2 if span == 0 else bottom - (rating - low) / span * (bottom - top)
        coords.append((round(x, 1), round(y, 1)))
    return Chart(
        width=width,
        height=height,
        points=" ".join(f"{x:g},{y:g}" for x, y in coords),
        coords=tuple(coords),
        low=round(low),
        high=round(high),
        low_y=coords[ratings.index(low)][1],
        high_y=coords[ratings.index(high)][1],
        first=round(ratings[0]),
        last=round(ratings[-1]),
    )


def extend_series(series: dict | None, rating: float, start: float | None = None) -> dict:
    """The stored history (``PlayerRating.series``) with one more rating at its end.

    ``series`` keeps the ratings at every ``step``-th game (the first always), plus the
    latest one when it falls between two of them. When more than ``2 * SERIES_POINTS``
    are kept, every other one goes and ``step`` doubles: the chart stays the same shape
    at a bounded size however many games a player has. ``start``: the rating before the
    first game, put first into an empty series.
    """
    if not series or not series.get("points"):
        series = {"step": 1, "count": 0, "points": []}
        if start is not None:
            series = extend_series(series, start)
    step, count, points = series["step"], series["count"], list(series["points"])
    if count and (count - 1) % step:
        points.pop()  # the latest rating, off the grid: the new one replaces it
    points.append(round(rating, 1))
    count += 1
    kept = (count - 1) // step + 1  # the ratings on the grid: games 0, step, 2·step…
    if kept > 2 * SERIES_POINTS:
        latest = points[-1]
        points = points[:kept:2]
        step *= 2
        if (count - 1) % step:
            points.append(latest)
    return {"step": step, "count": count, "points": points}


def series_ratings(series: dict | None) -> list[float]:
    """The ratings to draw from a stored history, oldest first."""
    return list(series["points"]) if series else []
