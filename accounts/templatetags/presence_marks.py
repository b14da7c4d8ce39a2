"""``{% presence_line presence %}``: "Online now", "Last seen 3 hours ago" or nothing,
for a ``accounts.online.Presence`` (``presence_of``'s answer for one player)."""

from django import template

from ..online import presence_words

register = template.Library()


@register.filter
def presence_text(presence):
    """The words alone: "Online now", "Last seen 3 hours ago", or ""."""
    return presence_words(presence)


@register.inclusion_tag("accounts/_presence.html")
def presence_line(presence):
    """The words in a small mark (``templates/accounts/_presence.html``); nothing at all
    when there is nothing to show."""
    return {"words": presence_words(presence), "online": bool(presence and presence.online)}
