"""The words of the emails the worker sends (``games.jobs.send_notifications``).

``compose`` reads the notification's cause as it is *now*: an email that no longer
applies (the turn was played, the invitation answered) is not sent, and the reason why
is kept on the row instead. Every email ends with its one-click unsubscribe link, which
``unsubscribe_headers`` also gives as RFC 8058's headers, and ``send_mail`` sends them.
"""

from __future__ import annotations

from django.conf import settings
from django.core.mail import EmailMessage
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from shanghaien.lib.local_time import local_moment

from .access import seating
from .clock import effective_deadline
from .models import Game, Invitation, Notification
from .services.presence import has_game_open


def _game_url(game_id: int) -> str:
    return f"{settings.SITE_URL}/games/{game_id}/"


def compose(notification: Notification) -> tuple[str, str] | str:
    """(subject, body) to send, or the reason not to: in the recipient's language, with
    times in their zone, whoever's action queued it."""
    user = notification.user
    with (
        translation.override(user.language or settings.LANGUAGE_CODE),
        timezone.override(user.zone),
    ):
        email = _compose(notification)
        if isinstance(email, str):
            return email
        subject, body = email
        return subject, body + _unsubscribe_footer(notification)


def send_mail(subject: str, body: str, sender, to: list[str], headers=None) -> int:
    """Django's ``send_mail``, with headers: one message, from ``DEFAULT_FROM_EMAIL``
    when ``sender`` is None."""
    return EmailMessage(subject, body, sender, to, headers=headers).send()


def unsubscribe_url(notification: Notification) -> str:
    """The link that turns this kind of email off, without logging in
    (``accounts.models.UNSUBSCRIBE_FROM``)."""
    token = notification.user.unsubscribe_token(notification.kind)
    return settings.SITE_URL + reverse("unsubscribe", args=[token])


def unsubscribe_headers(notification: Notification) -> dict[str, str]:
    """RFC 8058's one-click unsubscribe: mail clients show a button that posts to the link."""
    return {
        "List-Unsubscribe": f"<{unsubscribe_url(notification)}>",
        "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
    }


def _unsubscribe_footer(notification: Notification) -> str:
    kind, names = notification.kind, {"url": unsubscribe_url(notification)}
    if kind == Notification.Kind.TURN:
        text = _("To stop the emails when it is your turn, open:\n%(url)s\n")
    elif kind == Notification.Kind.REMINDER:
        text = _("To stop the deadline reminders, open:\n%(url)s\n")
    elif kind == Notification.Kind.DIGEST:
        text = _("To stop the daily digest, open:\n%(url)s\n")
    elif kind == Notification.Kind.INVITATION:
        text = _("To stop the emails about invitations, open:\n%(url)s\n")
    else:  # the timeout email
        text = _("To stop the emails when a game is won or lost on time, open:\n%(url)s\n")
    return "\n-- \n" + text % names


def _compose(notification: Notification) -> tuple[str, str] | str:
    user, game = notification.user, notification.game
    kind = notification.kind
    if not user.email:  # removed since the email was queued
        return "no email address"
    if not user.email_confirmed():  # changed since, to an address not yet confirmed
        return "address not confirmed"
    if kind in (Notification.Kind.TURN, Notification.Kind.REMINDER):
        return _about_the_turn(notification, user, game)
    if kind == Notification.Kind.TIMEOUT:
        return _timeout(user, game)
    if kind == Notification.Kind.INVITATION:
        return _invitation(notification)
    if kind == Notification.Kind.DIGEST:
        return _digest(user)
    return "unknown kind"


def turn_passed(notification, user, game: Game) -> str:
    """Why a turn's or a reminder's notification is no longer worth sending ("" if it
    still is): the turn was played, or the player has the game open."""
    if game.status != Game.Status.ACTIVE or game.to_move_id != user.pk:
        return "no longer your turn"
    if notification.kind == Notification.Kind.TURN and has_game_open(game, user):
        return "game open"
    return ""


def open_invitation(notification) -> Invitation | None:
    """The invitation a notification is about, if it still waits for an answer."""
    invitation = Invitation.objects.filter(pk=notification.key).first()
    if invitation is None or invitation.status != Invitation.Status.OPEN:
        return None
    return invitation


def _about_the_turn(notification, user, game: Game) -> tuple[str, str] | str:
    if passed := turn_passed(notification, user, game):
        return passed
    names = {"opponent": seating(game, user).opponent.username}
    names["when"] = local_moment(effective_deadline(game))
    names["url"] = _game_url(game.pk)
    if notification.kind == Notification.Kind.TURN:
        return (
            _("Your turn against %(opponent)s") % names,
            _("%(opponent)s has moved. Your move, by %(when)s:\n%(url)s\n") % names,
        )
    return (
        _("Reminder: your move against %(opponent)s") % names,
        _("A fifth of your time is left: move by %(when)s, or the game is lost on time.\n%(url)s\n")
        % names,
    )


def _timeout(user, game: Game) -> tuple[str, str]:
    url = _game_url(game.pk)
    if game.winner_id == user.pk:
        return (
            _("Game %(id)d won on time") % {"id": game.pk},
            _("You won on time: your opponent did not move before the deadline.\n%(url)s\n")
            % {"url": url},
        )
    return (
        _("Game %(id)d lost on time") % {"id": game.pk},
        _("You lost on time: you did not move before the deadline.\n%(url)s\n") % {"url": url},
    )


def _invitation(notification) -> tuple[str, str] | str:
    invitation = open_invitation(notification)
    if invitation is None:
        return "invitation closed"
    return (
        _("%(name)s invites you to a game of Shanghaien") % {"name": invitation.from_user.username},
        _("%(message)s\n\nAccept or decline in your lobby: %(url)s/\n")
        % {"message": invitation.message, "url": settings.SITE_URL},
    )


def _digest(user) -> tuple[str, str] | str:
    waiting = Game.objects.filter(status=Game.Status.ACTIVE, to_move=user).order_by("id")
    lines = [_("- game %(id)d: %(url)s") % {"id": g.pk, "url": _game_url(g.pk)} for g in waiting]
    if not lines:
        return "nothing waiting"
    subject = ngettext(
        "%(n)d game waiting for your move", "%(n)d games waiting for your move", len(lines)
    ) % {"n": len(lines)}
    return subject, _("These games wait for you:\n") + "\n".join(lines) + "\n"
