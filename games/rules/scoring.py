"""Final scoring: the stronger crew of a nationality scores the weaker crew's strength."""

from __future__ import annotations

from .cards import NATIONS
from .state import Player, Score


def nation_points(mine: int, theirs: int) -> int:
    """What a player with strength ``mine`` scores for a nation against ``theirs``."""
    if mine == 0:
        return 0
    if theirs == 0:
        return mine  # nobody contests it: keep and score your own
    return theirs if mine > theirs else 0  # the stronger takes the weaker crew; a tie scores 0


def score(players: tuple[Player, Player]) -> tuple[Score, Score]:
    strengths = [p.strengths() for p in players]
    scores = []
    for seat, player in enumerate(players):
        mine, theirs = strengths[seat], strengths[1 - seat]
        by_nation = tuple((n, nation_points(mine[n], theirs[n])) for n in NATIONS)
        tricks = len(player.tricks)
        total = sum(points for _, points in by_nation) + tricks
        scores.append(Score(total=total, by_nation=by_nation, tricks=tricks))
    return scores[0], scores[1]


def winner_of(scores: tuple[Score, Score]) -> int | None:
    """The seat with more points, or None for a draw."""
    if scores[0].total == scores[1].total:
        return None
    return 0 if scores[0].total > scores[1].total else 1
