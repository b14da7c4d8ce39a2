"""``{{ person.bot_level|bot_mark }}``: the tag beside a computer opponent's name."""

from django import template
from django.utils.html import format_html
from django.utils.safestring import SafeString

from ..models import bot_mark as mark_words

register = template.Library()


@register.filter
def bot_mark(level):
    """A tag saying "computer · Captain" for a computer opponent's level, after a space;
    nothing for a person (safe either way, so that ``name|add:mark`` stays HTML)."""
    if not level:
        return SafeString("")
    return format_html(' <span class="tag bot">{}</span>', mark_words(level))
