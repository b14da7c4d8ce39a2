"""Telling open tournament pages that something changed.

Interface (body to come)."""

from __future__ import annotations


def changed(tournament_id: int, version: int) -> None:
    """After the commit: every page open on the tournament reloads what it shows."""
