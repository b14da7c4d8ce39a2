"""The start (the draw), each next stage, a level match's third game, the end.

Interface (bodies to come).
"""

from __future__ import annotations


def do_start(tournament_id, user=None, now=None):
    """Draw the groups or the bracket by rating snake and start every game of the first
    stage at once, in one transaction. ``user``: the creator starting early (enough
    players signed up); None: the worker at the sign-up deadline (too few: cancelled)."""
    raise NotImplementedError


def do_check(tournament_id, now=None) -> str:
    """The worker's look at one tournament whose ``check_at`` has come: start it, start
    a level match's third game, start the next stage, or finish it. What it did."""
    raise NotImplementedError


def check_due(now=None) -> dict:
    """The worker's job: every tournament whose ``check_at`` has come, on its index."""
    raise NotImplementedError
