from datetime import datetime

from django import template
from django.utils import formats, timezone
from django.utils.dateparse import parse_date
from django.utils.html import format_html

from ..local_time import as_moment, local_moment

register = template.Library()


@register.filter
def moment(value):
    """``{{ deadline|moment }}``: a <time> in the reader's language and zone."""
    when = as_moment(value)
    if when is None:
        return ""
    return format_html('<time datetime="{}">{}</time>', when.isoformat(), local_moment(when))


@register.filter
def day(value):
    """``{{ holiday.start|day }}``: a date (or its ISO text) in the reader's language."""
    if isinstance(value, str):
        value = parse_date(value[:10])
    elif isinstance(value, datetime):
        value = timezone.localtime(value).date()
    if value is None:
        return ""
    return formats.date_format(value, "DATE_FORMAT")
