"""Deadlines: how long the player to move has, with their holidays added.

Two kinds of clock. Days per move (``Game.days_per_move``): each turn has the same time.
A time bank (``Bank``): each player has a bank of time, spent while it is their turn;
a turn's deadline is its start plus the mover's bank (``Game.banks``), holidays and the
extra day added by ``effective_deadline`` as for any deadline. As a turn ends, what was
left of it (holidays stopped it; an extra day not used is left too) plus the increment
becomes that player's bank, never above the cap (``bank_after_turn``). A player whose
bank runs out loses on time, by the same ``due_at`` selection as any deadline.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from datetime import timedelta

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from accounts.models import Holiday


@dataclass(frozen=True)
class Bank:
    """A time bank's terms, in hours: what each player starts with, what each of their
    turns adds as it ends, and the most a bank holds."""

    start_hours: int
    increment_hours: int
    cap_hours: int

    @classmethod
    def of(cls, row) -> Bank | None:
        """The terms of a ``Game``, ``Invitation`` or tournament row; None: days per move."""
        if row.bank_start_hours is None:
            return None
        return cls(row.bank_start_hours, row.bank_increment_hours, row.bank_cap_hours)

    def fields(self) -> dict:
        """The model fields that hold these terms."""
        return {
            "bank_start_hours": self.start_hours,
            "bank_increment_hours": self.increment_hours,
            "bank_cap_hours": self.cap_hours,
        }


def hours_text(hours: int) -> str:
    """A length of whole hours as the lobby says it: "3 days", "12 hours"."""
    if hours and hours % 24 == 0:
        return ngettext("%(n)s day", "%(n)s days", hours // 24) % {"n": hours // 24}
    return ngettext("%(n)s hour", "%(n)s hours", hours) % {"n": hours}


def bank_text(bank: Bank) -> str:
    """A bank's terms in a sentence: "Time bank 3 days, +1 day a move, at most 7 days"."""
    names = {"start": hours_text(bank.start_hours), "cap": hours_text(bank.cap_hours)}
    if not bank.increment_hours:
        return _("Time bank %(start)s, nothing added a move, at most %(cap)s") % names
    names["increment"] = hours_text(bank.increment_hours)
    return _("Time bank %(start)s, +%(increment)s a move, at most %(cap)s") % names


NO_BANK = {"bank_start_hours": None, "bank_increment_hours": 0, "bank_cap_hours": None}
HOUR = 3600


def bank_after_turn(bank: Bank, remaining: dt.timedelta) -> int:
    """A player's bank in whole seconds as their turn ends with ``remaining`` left of it
    (negative: counts as none): what was left plus the increment, at most the cap."""
    left = max(0, int(remaining.total_seconds()))
    return min(bank.cap_hours * HOUR, left + bank.increment_hours * HOUR)


def turn_time(game, seat: int) -> timedelta:
    """The time a turn of ``seat`` begins with: the days per move, or the seat's bank."""
    if game.bank_start_hours is None:
        return timedelta(days=game.days_per_move)
    return timedelta(seconds=game.banks[seat])


def end_turn(game, seat: int, now: dt.datetime, mover) -> None:
    """The turn of ``seat`` (``mover``, the player to move until now) ends at ``now``: in a
    bank game, their bank becomes what was left plus the increment (``bank_after_turn``),
    their holidays read (one query) to stop the clock. Nothing in a game without a bank."""
    bank = Bank.of(game)
    if bank is None or game.deadline is None or game.banks is None:
        return
    holidays = list(Holiday.objects.filter(user_id=mover.pk))
    deadline = effective_deadline(game, holidays, mover.zone if holidays else None)
    banks = list(game.banks)
    banks[seat] = bank_after_turn(bank, deadline - now)
    game.banks = banks


def day_start(day: dt.date, zone: dt.tzinfo = dt.UTC) -> dt.datetime:
    return dt.datetime.combine(day, dt.time.min, tzinfo=zone)


def holiday_span(holiday: Holiday, zone: dt.tzinfo = dt.UTC) -> tuple[dt.datetime, dt.datetime]:
    """From the first day's midnight to the midnight after the last, in the player's zone
    (a day of 23 or 25 hours where the clocks change)."""
    # In UTC: Python subtracts two times of one zone by their wall clocks (24 hours).
    start = day_start(holiday.start, zone).astimezone(dt.UTC)
    return start, day_start(holiday.end + timedelta(days=1), zone).astimezone(dt.UTC)


def effective_deadline(game, holidays=None, zone=None) -> dt.datetime | None:
    """The deadline of the player to move, paused by each holiday that falls in their turn.

    Holidays are whole days of the mover's time zone (``zone``; read from the mover
    only if they have a holiday).
    """
    if game.deadline is None or game.to_move_id is None:
        return None
    if holidays is None:
        holidays = Holiday.objects.filter(user_id=game.to_move_id)
    deadline = game.deadline
    begun = game.turn_started_at or game.deadline
    for holiday in sorted(holidays, key=lambda h: h.start):
        if zone is None:
            zone = game.to_move.zone
        start, end = holiday_span(holiday, zone)
        if start < deadline and end > begun:
            deadline += end - max(start, begun)
    return deadline


def began_with(game) -> timedelta:
    """The time the mover's turn began with: the days per move, or in a bank game the
    mover's bank (the stored deadline less the turn's start and any extra day)."""
    if game.bank_start_hours is None or game.turn_started_at is None or game.deadline is None:
        return timedelta(days=game.days_per_move)
    extra = timedelta(days=1) if game.extended else timedelta(0)
    return game.deadline - game.turn_started_at - extra


def reminder_due(game, deadline: dt.datetime) -> dt.datetime:
    """When a fifth of the time the turn began with is left."""
    return deadline - began_with(game) / 5


def next_due(game, deadline: dt.datetime | None, now: dt.datetime) -> dt.datetime | None:
    """When the deadline job must next look at ``game`` (``Game.due_at``), given the
    mover's ``deadline``: at the reminder moment until it has passed, then at the deadline.

    ``None`` (no deadline, or a computer opponent to move: it never runs out of time)
    means never. A reminder is queued once per turn whatever wakes the job (its key is the
    turn), so an extra day that moves the reminder moment back into the future only costs
    a look at the game, never a second reminder.
    """
    if deadline is None or game.to_move_id is None or game.to_move.is_computer:
        return None
    remind = reminder_due(game, deadline)
    return remind if now < remind else deadline
