"""Read-side helpers: what a player's lobby and lists show."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db.models import Case, IntegerField, OuterRef, Q, Subquery, Value, When
from django.db.models.fields.json import KeyTextTransform

from .models import Event, Game, Invitation

# Every way a game is over: with a result, called off by a player, annulled by a moderator.
ENDED = (Game.Status.FINISHED, Game.Status.ABORTED, Game.Status.ANNULLED)


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


def ended_games_for(user):
    """A player's games that are over, whatever ended them, the last to end first; each
    with the ``ending_note`` its ``game_ended`` event carries (a moderator's reason)."""
    ending = Event.objects.filter(game=OuterRef("pk"), kind="game_ended")
    note = ending.annotate(note=KeyTextTransform("note", "payload")).values("note")[:1]
    return (
        Game.objects.filter(seats__user=user, status__in=ENDED)
        .prefetch_related("seats__user__holidays")
        .annotate(ending_note=Subquery(note))
        .order_by("-finished_at", "-id")
    )


def has_ended_games(user) -> bool:
    return Game.objects.filter(seats__user=user, status__in=ENDED).exists()


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


def bot_of_level(level: str):
    """The computer opponent's account of ``level`` (made by accounts migration 0010)."""
    return get_user_model().objects.get(bot_level=level)
