"""Moments as a person reads them: in their language and their time zone, never bare UTC."""

from __future__ import annotations

from datetime import datetime

from django.utils import formats, timezone
from django.utils.dateparse import parse_datetime


def as_moment(value) -> datetime | None:
    """A datetime from a datetime or its ISO text (the JSON of a game); None otherwise."""
    if isinstance(value, datetime):
        return value
    if isinstance(value, str):
        try:
            return parse_datetime(value)
        except ValueError:
            return None
    return None


def local_moment(value) -> str:
    """The moment in the active language's format and the active time zone, followed by
    the zone's abbreviation: "24 novembre 2026 15:00 CET"."""
    moment = as_moment(value)
    if moment is None:
        return ""
    local = timezone.localtime(moment)
    return f"{formats.date_format(local, 'DATETIME_FORMAT')} {local.tzname()}"
