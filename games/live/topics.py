"""Topics a lobby socket may watch, registered by the apps above games.

An app that wants open pages told of its changes registers a topic here (in its
``AppConfig.ready``) with a check: ``exists(user, id) -> bool`` (the thing exists and
this user may see it), called on a database thread. The lobby socket then takes
``{"type": "watch", "topic": NAME, "id": N}``, joins the group ``topic_group(NAME, N)``
and forwards every ``changed(NAME, N, version)`` as a ``changed`` frame. games never
imports those apps: it only knows the names they gave.
"""

from __future__ import annotations

from collections.abc import Callable

from .broadcast import topic_changed, topic_group

TOPICS: dict[str, Callable[[object, int], bool]] = {}
WATCHED_MAX = 4  # topics one lobby socket watches at once; the oldest is dropped


def register(name: str, exists: Callable[[object, int], bool]) -> None:
    """Make ``name`` a topic the lobby socket may watch (idempotent)."""
    TOPICS[name] = exists


def changed(name: str, pk: int, version: int) -> None:
    """Tell every socket watching (``name``, ``pk``) that it is at ``version`` now; call
    it after the commit. A layer away is logged, never raised."""
    topic_changed(name, pk, version)


__all__ = ["TOPICS", "WATCHED_MAX", "changed", "register", "topic_group"]
