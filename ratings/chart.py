"""The rating history as the points of a small SVG line chart (pure: no Django)."""

from __future__ import annotations

from dataclasses import dataclass

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
