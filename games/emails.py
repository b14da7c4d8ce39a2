"""The words of the emails the worker sends (``games.jobs.send_notifications``).

``compose`` reads the notification's cause as it is *now*: an email that no longer
applies (the turn was played, the invitation answered) is not sent, and the reason why
is kept on the row instead.
"""

from __future__ import annotations

from django.conf import settings
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from .access import seating
from .clock import effective_deadline
from .models import Game, Invitation, Notification
from .services.presence import has_game_open


def _game_url(game_id: int) -> str:
    return f"{settings.SITE_URL}/games/{game_id}/"


def compose(notification: Notification) -> tuple[str, str] | str:
    """(subject, body) to send, or the reason not to."""
    user, game = notification.user, notification.game
    kind = notification.kind
    if not user.email:  # removed since the email was queued
        return "no email address"
    if kind in (Notification.Kind.TURN, Notification.Kind.REMINDER):
        return _about_the_turn(notification, user, game)
    if kind == Notification.Kind.TIMEOUT:
        return _timeout(user, game)
    if kind == Notification.Kind.INVITATION:
        return _invitation(notification)
    if kind == Notification.Kind.DIGEST:
        return _digest(user)
    return "unknown kind"


def _about_the_turn(notification, user, game: Game) -> tuple[str, str] | str:
    if game.status != Game.Status.ACTIVE or game.to_move_id != user.pk:
        return "no longer your turn"
    if notification.kind == Notification.Kind.TURN and has_game_open(game, user):
        return "game open"
    names = {"opponent": seating(game, user).opponent.username}
    names["when"] = effective_deadline(game).strftime("%Y-%m-%d %H:%M UTC")
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
    invitation = Invitation.objects.filter(pk=notification.key).first()
    if invitation is None or invitation.status != Invitation.Status.OPEN:
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
