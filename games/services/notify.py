"""The emails a change queues. Each player's choices live in ``User.wants_email``; the
worker (``games.jobs``) sends what is queued, and skips what no longer applies."""

from __future__ import annotations

from django.db import IntegrityError, transaction

from ..models import Game, Invitation, Notification


def queue(user, kind: str, key: str, game: Game | None = None) -> None:
    """Write an email to the outbox, once per (user, kind, key); the worker sends it."""
    try:
        with transaction.atomic():
            Notification.objects.create(user=user, kind=kind, key=key, game=game)
    except IntegrityError:
        pass  # already queued: at most one


def your_turn(game: Game) -> None:
    """A player's turn began: "your turn", once per game and turn."""
    mover = game.to_move
    if mover is not None and mover.wants_email(Notification.Kind.TURN):
        queue(mover, Notification.Kind.TURN, f"{game.pk}:{game.turn_number}", game)


def invited(invitation: Invitation) -> None:
    to_user = invitation.to_user
    if to_user is not None and to_user.wants_email(Notification.Kind.INVITATION):
        queue(to_user, Notification.Kind.INVITATION, str(invitation.pk))


def reminder(game: Game) -> bool:
    """A fifth of the time to move is left: one reminder per turn. True if it is wanted."""
    mover = game.to_move
    if mover is None or not mover.wants_email(Notification.Kind.REMINDER):
        return False
    queue(mover, Notification.Kind.REMINDER, f"{game.pk}:{game.turn_number}", game)
    return True


def timed_out(game: Game, players) -> None:
    for player in players:
        if player.wants_email(Notification.Kind.TIMEOUT):
            queue(player, Notification.Kind.TIMEOUT, str(game.pk), game)


def digest(user, day: str) -> bool:
    if not user.wants_email(Notification.Kind.DIGEST):
        return False
    queue(user, Notification.Kind.DIGEST, day)
    return True
