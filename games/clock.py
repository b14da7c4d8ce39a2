"""Deadlines: how long the player to move has, with their holidays added."""

from __future__ import annotations

import datetime as dt
from datetime import timedelta

from accounts.models import Holiday


def day_start(day: dt.date) -> dt.datetime:
    return dt.datetime.combine(day, dt.time.min, tzinfo=dt.UTC)


def holiday_span(holiday: Holiday) -> tuple[dt.datetime, dt.datetime]:
    return day_start(holiday.start), day_start(holiday.end) + timedelta(days=1)


def effective_deadline(game, holidays=None) -> dt.datetime | None:
    """The deadline of the player to move, paused by each holiday that falls in their turn."""
    if game.deadline is None or game.to_move_id is None:
        return None
    if holidays is None:
        holidays = Holiday.objects.filter(user_id=game.to_move_id)
    deadline = game.deadline
    begun = game.turn_started_at or game.deadline
    for holiday in sorted(holidays, key=lambda h: h.start):
        start, end = holiday_span(holiday)
        if start < deadline and end > begun:
            deadline += end - max(start, begun)
    return deadline


def reminder_due(game, deadline: dt.datetime) -> dt.datetime:
    """When a fifth of the time to move is left."""
    return deadline - timedelta(days=game.days_per_move) / 5
