"""The words of the emails the worker sends (``send``): one function a kind, named by
the kind's ``compose`` in the table (``kinds``), which returns (subject, body) or the
reason not to send it.

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

from accounts.models import Notice
from shanghaien.lib.local_time import local_moment

from ..access import seating
from ..clock import effective_deadline
from ..models import Game, Invitation, Notification
from ..services.presence import has_game_open
from . import kinds, preferences, writers

Email = tuple[str, str] | str  # (subject, body), or why it is not sent


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
        kind = kinds.get(notification.kind)
        email = _compose(notification, kind)
        if isinstance(email, str):
            return email
        subject, body = email
        return subject, body + _unsubscribe_footer(notification, kind)


def send_mail(subject: str, body: str, sender, to: list[str], headers=None) -> int:
    """Django's ``send_mail``, with headers: one message, from ``DEFAULT_FROM_EMAIL``
    when ``sender`` is None."""
    return EmailMessage(subject, body, sender, to, headers=headers).send()


def unsubscribe_url(notification: Notification) -> str:
    """The link that turns this kind of email off, without logging in
    (``preferences.unsubscribe``)."""
    token = preferences.unsubscribe_token(notification.user, notification.kind)
    return settings.SITE_URL + reverse("unsubscribe", args=[token])


def unsubscribe_headers(notification: Notification) -> dict[str, str]:
    """RFC 8058's one-click unsubscribe: mail clients show a button that posts to the link."""
    return {
        "List-Unsubscribe": f"<{unsubscribe_url(notification)}>",
        "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
    }


def _unsubscribe_footer(notification: Notification, kind: kinds.Kind) -> str:
    return "\n-- \n" + str(kind.footer) % {"url": unsubscribe_url(notification)}


def _compose(notification: Notification, kind: kinds.Kind | None) -> Email:
    user = notification.user
    if not user.email:  # removed since the email was queued
        return "no email address"
    if not user.email_confirmed():  # changed since, to an address not yet confirmed
        return "address not confirmed"
    write = None
    if kind and kind.email:
        write = globals().get(kind.compose) or writers.EMAIL.get(kind.compose)
    if write is None:
        return "unknown kind"
    return write(notification)


# -- one function a kind (``Kind.compose``) ----------------------------------------------


def turn(notification: Notification) -> Email:
    return _about_the_turn(notification, notification.user, notification.game)


def reminder(notification: Notification) -> Email:
    return _about_the_turn(notification, notification.user, notification.game)


def timeout(notification: Notification) -> Email:
    user, game = notification.user, notification.game
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


def invitation(notification: Notification) -> Email:
    invitation = open_invitation(notification)
    if invitation is None:
        return "invitation closed"
    return (
        _("%(name)s invites you to a game of Shanghaien") % {"name": invitation.from_user.username},
        _("%(message)s\n\nAccept or decline in your lobby: %(url)s/\n")
        % {"message": invitation.message, "url": settings.SITE_URL},
    )


def notice(notification: Notification) -> Email:
    """A moderators' notice (``accounts.models.Notice``, its id the key): the words the
    player's page shows, written in their language when it was given."""
    given = Notice.objects.filter(pk=notification.key, user=notification.user).first()
    if given is None:
        return "notice gone"
    return given.subject, given.body + "\n\n" + settings.SITE_URL + "/\n"


def digest(notification: Notification) -> Email:
    user = notification.user
    waiting = Game.objects.filter(status=Game.Status.ACTIVE, to_move=user).order_by("id")
    lines = [_("- game %(id)d: %(url)s") % {"id": g.pk, "url": _game_url(g.pk)} for g in waiting]
    if not lines:
        return "nothing waiting"
    subject = ngettext(
        "%(n)d game waiting for your move", "%(n)d games waiting for your move", len(lines)
    ) % {"n": len(lines)}
    return subject, _("These games wait for you:\n") + "\n".join(lines) + "\n"


# -- shared by the emails and the pushes -------------------------------------------------


def turn_passed(notification, user, game: Game) -> str:
    """Why a turn's or a reminder's notification is no longer worth sending ("" if it
    still is): the turn was played, or the player has the game open."""
    if game.status != Game.Status.ACTIVE or game.to_move_id != user.pk:
        return "no longer your turn"
    if notification.kind == "turn" and has_game_open(game, user):
        return "game open"
    return ""


def open_invitation(notification) -> Invitation | None:
    """The invitation a notification is about, if it still waits for an answer."""
    invitation = Invitation.objects.filter(pk=notification.key).first()
    if invitation is None or invitation.status != Invitation.Status.OPEN:
        return None
    return invitation


def _about_the_turn(notification, user, game: Game) -> Email:
    if passed := turn_passed(notification, user, game):
        return passed
    seats = seating(game, user)
    names = {"opponent": seats.opponent.username}
    names["when"] = local_moment(effective_deadline(game))
    names["url"] = _game_url(game.pk)
    if notification.kind == "turn":
        return _("Your turn against %(opponent)s") % names, _turn_body(game, seats.seat) % names
    return (
        _("Reminder: your move against %(opponent)s") % names,
        _("A fifth of your time is left: move by %(when)s, or the game is lost on time.\n%(url)s\n")
        % names,
    )


def _turn_body(game: Game, seat: int | None) -> str:
    """What a turn email says happened: the game's first turn (``turn_number`` 1: the
    game began, nobody has moved) follows an accepted invitation, the inviter's seat 0
    (games.services.invitations); any later one, a move."""
    if game.turn_number == 1 and seat == 0:
        return _("%(opponent)s accepted your invitation. You move first, by %(when)s:\n%(url)s\n")
    if game.turn_number == 1:
        return _(
            "Your game against %(opponent)s has begun. You move first, by %(when)s:\n%(url)s\n"
        )
    return _("%(opponent)s has moved. Your move, by %(when)s:\n%(url)s\n")
