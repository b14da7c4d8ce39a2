"""The words of the push notifications the worker sends (``send``): short, in the
player's language and time zone, opening the right page when tapped. One function a
kind, named by the kind's ``compose`` in the table (``kinds``), which returns the
message or the reason not to send it; ``shanghaien.lib.webpush`` carries it.

Like an email, a push is composed when it is sent, from its cause as it is *now*: one
that no longer applies (the turn was played, the invitation answered, the game is open
on the player's screen) is not sent, and the reason is kept on its outbox row instead.
Every notification about a game has the game's topic and tag, so a newer one (the next
turn, the reminder, the game lost on time) replaces the older, at the push service
while the device is offline and on the device once it is shown.
"""

from __future__ import annotations

from django.conf import settings
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from shanghaien.lib.local_time import local_moment
from shanghaien.lib.webpush import TTL_MAX, Message

from ..access import seating
from ..clock import effective_deadline
from ..models import Game, Notification
from . import kinds, writers
from .mail import open_invitation, turn_passed

BODY_MAX = 160  # characters: what a lock screen shows of a notification
INVITATION_TTL = 7 * 24 * 3600  # an invitation waits a week at most for its answer
TIMEOUT_TTL = 3 * 24 * 3600
TURN_TTL = 24 * 3600  # a turn without a deadline (a game with no clock)


def compose(notification: Notification) -> Message | str:
    """The message for the notification's device, or the reason not to send it."""
    user = notification.user
    if notification.subscription_id is None:
        return "device removed"
    with (
        translation.override(user.language or settings.LANGUAGE_CODE),
        timezone.override(user.zone),
    ):
        message = _compose(notification)
        if isinstance(message, Message):
            message.payload["lang"] = translation.get_language()
        return message


def _compose(notification: Notification) -> Message | str:
    kind = kinds.get(notification.kind)
    write = None
    if kind and kind.push:
        write = globals().get(kind.compose) or writers.PUSH.get(kind.compose)
    if write is None:
        return "no push for this kind"
    return write(notification)


# -- one function a kind (``Kind.compose``) ----------------------------------------------


def turn(notification: Notification) -> Message | str:
    user, game = notification.user, notification.game
    if passed := turn_passed(notification, user, game):
        return passed
    return _about_the_turn(notification, user, game)


reminder = turn  # the same checks; _about_the_turn tells the two apart


def timeout(notification: Notification) -> Message:
    user, game = notification.user, notification.game
    if game.winner_id == user.pk:
        title = _("Game %(id)d won on time") % {"id": game.pk}
        body = _("Your opponent did not move before the deadline.")
    else:
        title = _("Game %(id)d lost on time") % {"id": game.pk}
        body = _("You did not move before the deadline.")
    return game_message(game, title, body, TIMEOUT_TTL)


def invitation(notification: Notification) -> Message | str:
    invitation = open_invitation(notification)
    if invitation is None:
        return "invitation closed"
    tag = f"invitation-{invitation.pk}"
    title = _("%(name)s invites you to a game of Shanghaien") % {
        "name": invitation.from_user.username
    }
    body = invitation.message or _("Accept or decline in your lobby.")
    payload = {"title": title, "body": short(body), "url": "/", "tag": tag}
    return Message(payload=payload, topic=tag, ttl=INVITATION_TTL)


def game_message(game: Game, title: str, body: str, ttl: int, urgency="normal") -> Message:
    tag = f"game-{game.pk}"
    payload = {"title": title, "body": short(body), "url": f"/games/{game.pk}/", "tag": tag}
    return Message(payload=payload, topic=tag, ttl=ttl, urgency=urgency)


def _about_the_turn(notification, user, game: Game) -> Message:
    deadline = effective_deadline(game)
    names = {"opponent": seating(game, user).opponent.username}
    ttl = TURN_TTL
    if deadline is not None:
        names["when"] = local_moment(deadline)
        ttl = int(min(max((deadline - timezone.now()).total_seconds(), 60), TTL_MAX))
    if notification.kind == "turn":
        title = _("Your turn against %(opponent)s") % names
        body = _("Move by %(when)s.") % names if deadline else _("It is your move.")
        return game_message(game, title, body, ttl)
    title = _("Reminder: your move against %(opponent)s") % names
    body = _("A fifth of your time is left: move by %(when)s.") % names
    return game_message(game, title, body, ttl, urgency="high")


def short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= BODY_MAX else text[: BODY_MAX - 1] + "…"
