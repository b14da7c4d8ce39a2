"""The emails and push notifications a change queues. Each player's choices live in
``User.wants_email`` and ``User.wants_push``; the worker (``games.jobs``) sends what is
queued, and skips what no longer applies. A push is queued once for each of the player's
devices (``PushSubscription``), so that each is retried, or forgotten, on its own."""

from __future__ import annotations

from django.db import IntegrityError, transaction

from accounts.models import PushSubscription

from ..models import Game, Invitation, Notification


def queue(user, kind: str, key: str, game: Game | None = None) -> None:
    """Write an email to the outbox, once per (user, kind, key); the worker sends it."""
    try:
        with transaction.atomic():
            Notification.objects.create(user=user, kind=kind, key=key, game=game)
    except IntegrityError:
        pass  # already queued: at most one


def queue_push(user, kind: str, key: str, game: Game | None = None) -> bool:
    """Write a push to the outbox for each of the player's devices, once per (device,
    kind, key). True if they have a device."""
    devices = PushSubscription.objects.filter(user=user).values_list("pk", flat=True)
    rows = [
        Notification(
            user=user,
            kind=kind,
            key=key,
            game=game,
            channel=Notification.Channel.PUSH,
            subscription_id=pk,
        )
        for pk in devices
    ]
    Notification.objects.bulk_create(rows, ignore_conflicts=True)  # already queued: once
    return bool(rows)


def tell(user, kind: str, key: str, game: Game | None = None) -> bool:
    """Queue what the player chose for ``kind``: an email, a push to each device, both,
    or nothing. True if anything was."""
    told = False
    if user.wants_email(kind):
        queue(user, kind, key, game)
        told = True
    if user.wants_push(kind):
        told = queue_push(user, kind, key, game) or told
    return told


def your_turn(game: Game) -> None:
    """A player's turn began: "your turn", once per game and turn."""
    mover = game.to_move
    if mover is not None:
        tell(mover, Notification.Kind.TURN, f"{game.pk}:{game.turn_number}", game)


def invited(invitation: Invitation) -> None:
    to_user = invitation.to_user
    if to_user is not None:
        tell(to_user, Notification.Kind.INVITATION, str(invitation.pk))


def reminder(game: Game) -> bool:
    """A fifth of the time to move is left: one reminder per turn. True if one is queued."""
    mover = game.to_move
    if mover is None:
        return False
    return tell(mover, Notification.Kind.REMINDER, f"{game.pk}:{game.turn_number}", game)


def timed_out(game: Game, players) -> None:
    for player in players:
        tell(player, Notification.Kind.TIMEOUT, str(game.pk), game)


def digest(user, day: str) -> bool:
    if not user.wants_email(Notification.Kind.DIGEST):
        return False
    queue(user, Notification.Kind.DIGEST, day)
    return True
