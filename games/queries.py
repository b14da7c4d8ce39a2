"""Read-side helpers: what a player's lobby and lists show."""

from __future__ import annotations

from django.db.models import Case, IntegerField, Q, Value, When

from .models import Game, Invitation


def games_for(user, statuses=(Game.Status.ACTIVE,)):
    """A player's games, the ones waiting for them first, then the most recently moved."""
    return (
        Game.objects.filter(seats__user=user, status__in=statuses)
        .prefetch_related("seats__user__holidays")
        .annotate(
            waiting=Case(
                When(to_move=user, then=Value(1)), default=Value(0), output_field=IntegerField()
            )
        )
        .order_by("-waiting", "-last_move_at", "-id")
    )


def invitations_for(user) -> dict:
    """Open invitations a user can act on: received, sent, and open to anyone."""
    base = Invitation.objects.filter(status=Invitation.Status.OPEN).select_related(
        "from_user", "to_user"
    )
    return {
        "received": list(base.filter(to_user=user)),
        "sent": list(base.filter(from_user=user)),
        "open": list(base.filter(to_user__isnull=True).filter(~Q(from_user=user))),
    }


def record_of(user) -> dict:
    """Finished games played, won, lost and drawn."""
    finished = Game.objects.filter(seats__user=user, status=Game.Status.FINISHED)
    played = finished.count()
    won = finished.filter(winner=user).count()
    drawn = finished.filter(winner__isnull=True).count()
    return {"played": played, "won": won, "lost": played - won - drawn, "drawn": drawn}
