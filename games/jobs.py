"""The worker's jobs: timeouts, reminders, digests, and sending the queued emails.

Every job is idempotent and safe on two workers at once: timeouts lock the game row,
notifications are unique per (user, kind, key), and sending takes each outbox row
under a lock that another worker skips.
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.mail import send_mail
from django.db import transaction
from django.utils import timezone

from . import services
from .clock import effective_deadline, reminder_due
from .models import Game, Notification

log = logging.getLogger(__name__)


def check_deadlines(now=None) -> dict:
    """End the games whose time ran out; queue one reminder per turn when a fifth is left."""
    now = now or timezone.now()
    ended = reminded = 0
    games = Game.objects.filter(status=Game.Status.ACTIVE, deadline__isnull=False)
    for game in games.select_related("to_move").iterator():
        deadline = effective_deadline(game)
        if deadline is None:
            continue
        if deadline <= now:
            ended += services.do_timeout(game.pk, now)
        elif now >= reminder_due(game, deadline) and _wants_reminders(game.to_move):
            key = f"{game.pk}:{game.turn_number}"
            services.queue(game.to_move, Notification.Kind.REMINDER, key, game)
            reminded += 1
    return {"timeouts": ended, "reminders": reminded}


def _wants_reminders(user) -> bool:
    return bool(user.email_reminders and user.email)


def queue_digests(now=None) -> int:
    """One digest a day for each player who chose it and has games waiting."""
    now = now or timezone.now()
    users = get_user_model().objects.filter(daily_digest=True, is_active=True).exclude(email="")
    queued = 0
    for user in users.iterator():
        if Game.objects.filter(status=Game.Status.ACTIVE, to_move=user).exists():
            services.queue(user, Notification.Kind.DIGEST, now.date().isoformat())
            queued += 1
    return queued


def _game_url(game_id: int) -> str:
    return f"{settings.SITE_URL}/games/{game_id}/"


def _email(notification: Notification) -> tuple[str, str] | str:
    """(subject, body) to send, or the reason not to."""
    user, game = notification.user, notification.game
    kind = notification.kind
    if kind in (Notification.Kind.TURN, Notification.Kind.REMINDER):
        if game.status != Game.Status.ACTIVE or game.to_move_id != user.pk:
            return "no longer your turn"
        if kind == Notification.Kind.TURN and services.has_game_open(game, user):
            return "game open"
        opponent = next(s.user for s in game.seats.select_related("user") if s.user_id != user.pk)
        deadline = effective_deadline(game)
        when = deadline.strftime("%Y-%m-%d %H:%M UTC")
        if kind == Notification.Kind.TURN:
            return (
                f"Your turn against {opponent.username}",
                f"{opponent.username} has moved. Your move, by {when}:\n{_game_url(game.pk)}\n",
            )
        return (
            f"Reminder: your move against {opponent.username}",
            f"A fifth of your time is left: move by {when}, or the game is lost on time.\n"
            f"{_game_url(game.pk)}\n",
        )
    if kind == Notification.Kind.TIMEOUT:
        won = game.winner_id == user.pk
        outcome = "won on time: your opponent" if won else "lost on time: you"
        return (
            f"Game {game.pk} {'won' if won else 'lost'} on time",
            f"You {outcome} did not move before the deadline.\n{_game_url(game.pk)}\n",
        )
    if kind == Notification.Kind.INVITATION:
        from .models import Invitation

        invitation = Invitation.objects.filter(pk=notification.key).first()
        if invitation is None or invitation.status != Invitation.Status.OPEN:
            return "invitation closed"
        return (
            f"{invitation.from_user.username} invites you to a game of Shanghaien",
            f"{invitation.message}\n\nAccept or decline in your lobby: {settings.SITE_URL}/\n",
        )
    if kind == Notification.Kind.DIGEST:
        waiting = Game.objects.filter(status=Game.Status.ACTIVE, to_move=user).order_by("id")
        lines = [f"- game {g.pk}: {_game_url(g.pk)}" for g in waiting]
        if not lines:
            return "nothing waiting"
        return (
            f"{len(lines)} game{'s' if len(lines) > 1 else ''} waiting for your move",
            "These games wait for you:\n" + "\n".join(lines) + "\n",
        )
    return "unknown kind"


def send_notifications(now=None) -> int:
    """Send what the outbox holds, one row at a time under a lock other workers skip.

    A row is marked sent in the transaction that sends it; a failed send rolls back that
    row alone, which stays queued for the next run.
    """
    now = now or timezone.now()
    sent, failed = 0, []
    while True:
        with transaction.atomic():
            notification = (
                Notification.objects.select_for_update(skip_locked=True, of=("self",))
                .filter(sent_at__isnull=True)
                .exclude(id__in=failed)
                .select_related("user", "game")
                .order_by("id")
                .first()
            )
            if notification is None:
                return sent
            try:
                with transaction.atomic():
                    email = _email(notification)
                    if isinstance(email, tuple):
                        subject, body = email
                        send_mail(subject, body, None, [notification.user.email])
                        notification.outcome = "sent"
                        sent += 1
                    else:
                        notification.outcome = f"skipped: {email}"
                    notification.sent_at = now
                    notification.save(update_fields=["sent_at", "outcome"])
            except Exception:
                log.exception("sending notification %s failed", notification.pk)
                failed.append(notification.pk)


JOBS = {
    "deadlines": check_deadlines,
    "digests": queue_digests,
    "notifications": send_notifications,
}


def run_all(now=None) -> dict:
    return {name: job(now) for name, job in JOBS.items()}
