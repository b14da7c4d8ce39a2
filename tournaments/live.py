"""Telling open tournament pages that something changed.

A tournament page's script watches the topic ``tournament`` over the lobby socket
(``games.live.topics``; registered in ``apps.py``); the services call ``changed`` after
their commit, and each open page reloads what it shows (the page itself is read anew,
so nothing but the version travels).
"""

from __future__ import annotations

from games.live import topics

TOPIC = "tournament"


def exists(user, tournament_id: int) -> bool:
    """Whether there is such a tournament: every tournament page is public."""
    from .models import Tournament

    return Tournament.objects.filter(pk=tournament_id).exists()


def changed(tournament_id: int, version: int) -> None:
    """After the commit: every page open on the tournament reloads what it shows."""
    topics.changed(TOPIC, tournament_id, version)


def register() -> None:
    topics.register(TOPIC, exists)
