"""Declaring and cancelling holidays: whole days, in advance, 30 days a calendar year."""

from __future__ import annotations

import datetime as dt
from collections import Counter

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from shanghaien.lib.db import locked_or_404
from shanghaien.lib.errors import BadRequest, Conflict, Forbidden

from .models import HOLIDAY_DAYS_PER_YEAR, Holiday, User


def _days_by_year(start: dt.date, end: dt.date) -> Counter:
    counts = Counter()
    day = start
    while day <= end:
        counts[day.year] += 1
        day += dt.timedelta(days=1)
    return counts


def _date(value, name: str) -> dt.date:
    if isinstance(value, dt.date):
        return value
    try:
        return dt.date.fromisoformat(value)
    except (TypeError, ValueError):
        message = _("'%(field)s' is a date like 2026-12-24.") % {"field": name}
        raise BadRequest("bad_date", message) from None


# A holiday is announced at most this far ahead (and so ends within two years).
HOLIDAY_NOTICE_MAX = dt.timedelta(days=365)


def do_declare_holiday(user, start, end, now=None) -> Holiday:
    if user.bot_account:  # a program is never away; its clock runs like anyone's
        message = _("A bot account takes no holidays: a holiday would pause its clocks.")
        raise Forbidden("bot_account", message)
    start, end = _date(start, "start"), _date(end, "end")
    today = timezone.localtime(now or timezone.now(), user.zone).date()  # the player's day
    if start <= today:
        raise BadRequest("holiday_not_in_advance", _("A holiday is announced in advance."))
    if start > today + HOLIDAY_NOTICE_MAX:
        raise BadRequest("holiday_too_far", _("A holiday starts within a year from today."))
    if end < start:
        raise BadRequest("bad_dates", _("A holiday ends on or after its first day."))
    # Checked before any day is counted: a longer span could never fit the allowance.
    if (end - start).days + 1 > HOLIDAY_DAYS_PER_YEAR:
        raise BadRequest(
            "holiday_allowance",
            ngettext(
                "A holiday lasts at most %(n)d day (the yearly allowance).",
                "A holiday lasts at most %(n)d days (the yearly allowance).",
                HOLIDAY_DAYS_PER_YEAR,
            )
            % {"n": HOLIDAY_DAYS_PER_YEAR},
        )
    with transaction.atomic():
        User.objects.select_for_update().filter(pk=user.pk).first()  # one request at a time
        existing = list(Holiday.objects.filter(user=user))
        if any(h.start <= end and start <= h.end for h in existing):
            raise Conflict("holiday_overlaps", _("This overlaps a holiday you already declared."))
        used = Counter()
        for holiday in existing:
            used.update(_days_by_year(holiday.start, holiday.end))
        wanted = _days_by_year(start, end)
        for year, days in wanted.items():
            if used[year] + days > HOLIDAY_DAYS_PER_YEAR:
                left = HOLIDAY_DAYS_PER_YEAR - used[year]
                raise BadRequest(
                    "holiday_allowance",
                    ngettext(
                        "At most %(n)d day a year: %(left)d left in %(year)d.",
                        "At most %(n)d days a year: %(left)d left in %(year)d.",
                        HOLIDAY_DAYS_PER_YEAR,
                    )
                    % {"n": HOLIDAY_DAYS_PER_YEAR, "left": left, "year": year},
                )
        return Holiday.objects.create(user=user, start=start, end=end)


def do_cancel_holiday(user, holiday_id, now=None) -> None:
    today = timezone.localtime(now or timezone.now(), user.zone).date()
    with transaction.atomic():
        holiday = locked_or_404(
            Holiday.objects.filter(user=user), holiday_id, _("No such holiday.")
        )
        if holiday.start <= today:
            raise Conflict("holiday_started", _("A holiday that has begun cannot be cancelled."))
        holiday.delete()
