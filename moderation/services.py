"""Moderator actions and players' reports. Every moderator action writes its audit entry
in the same transaction as the change, and needs a reason."""

from __future__ import annotations

from datetime import timedelta

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from accounts.guest_accounts import refuse_guest
from accounts.models import SUSPENDED_FOR_GOOD as FOREVER
from accounts.models import User
from games.access import access_game
from games.live import broadcast
from games.models import ChatMessage, Game
from games.services.endings import end_by_server
from ratings.services import ranking_changed
from shanghaien.lib.db import locked_or_404
from shanghaien.lib.errors import BadRequest, Conflict, Forbidden, NotFound
from shanghaien.lib.input import clean_text
from shanghaien.lib.ratelimit import Limit

from .models import REASON_MAX, AuditEntry, Report


def _reason(reason) -> str:
    return clean_text(
        reason, "reason", max_length=REASON_MAX, multiline=True, invalid="reason_required"
    )


def _audit(moderator, action, target, reason, **details) -> AuditEntry:
    return AuditEntry.objects.create(
        moderator=moderator,
        action=action,
        target_type=target._meta.model_name,
        target_id=str(target.pk),
        target=str(target)[:200],
        reason=reason,
        details=details,
    )


def _require(moderator, permission: str) -> None:
    if not moderator.has_perm(permission):
        raise Forbidden("forbidden", _("You may not do that."))


def do_annul(game_id, moderator, reason) -> Game:
    """End a game with no result."""
    _require(moderator, "games.annul_game")
    reason = _reason(reason)
    with transaction.atomic():
        game = access_game(None, game_id, lock=True).game
        if game.status != Game.Status.ACTIVE:
            raise Conflict("game_over", _("Only a game in progress can be annulled."))
        end_by_server(game, "annulled", winner=None, note=reason)
        _audit(moderator, "annul", game, reason)
    return game


def do_adjudicate(game_id, moderator, winner, reason) -> Game:
    """Award a game in progress to one of its players."""
    _require(moderator, "games.adjudicate_game")
    reason = _reason(reason)
    with transaction.atomic():
        seating = access_game(winner, game_id, lock=True)
        game = seating.game
        if game.status != Game.Status.ACTIVE:
            raise Conflict("game_over", _("Only a game in progress can be adjudicated."))
        if seating.seat is None:
            raise BadRequest("not_a_player", _("The winner must be one of the players."))
        end_by_server(game, "adjudicated", winner=seating.seat)
        _audit(moderator, "adjudicate", game, reason, winner=winner.username)
    return game


def do_hide_message(message_id, moderator, reason) -> ChatMessage:
    _require(moderator, "games.hide_chatmessage")
    reason = _reason(reason)
    with transaction.atomic():
        message = locked_or_404(ChatMessage, message_id, _("No such message."))
        if not message.hidden:
            message.hidden = True
            message.save(update_fields=["hidden"])
            _audit(moderator, "hide_message", message, reason, text=message.text)
            game_id = message.game_id
            transaction.on_commit(lambda: broadcast.chat_hidden(game_id, message.pk))
    return message


def do_suspend(user_id, moderator, reason, days: int | None = None) -> User:
    """Suspend for ``days``, or for good; the user's games in progress go to the opponents."""
    _require(moderator, "accounts.suspend_user")
    reason = _reason(reason)
    if days is not None and (isinstance(days, bool) or not isinstance(days, int) or days < 1):
        raise BadRequest("bad_days", _("Suspend for a whole number of days, or for good."))
    with transaction.atomic():
        user = locked_or_404(User, user_id, _("No such user."))
        if user.pk == moderator.pk or user.is_superuser:
            raise Forbidden("forbidden", _("That account cannot be suspended here."))
        now = timezone.now()
        user.suspended_until = now + timedelta(days=days) if days else FOREVER
        user.suspension_reason = reason  # told to the player when they try to log in
        user.save(update_fields=["suspended_until", "suspension_reason"])
        adjudicated = []
        for game_id in Game.objects.filter(status=Game.Status.ACTIVE, seats__user=user).values_list(
            "pk", flat=True
        ):
            seating = access_game(user, game_id, lock=True)
            game = seating.game
            end_by_server(game, "adjudicated", winner=1 - seating.seat, now=now)
            adjudicated.append(game.pk)
        ranking_changed()  # a suspended player leaves the ranking
        _audit(
            moderator,
            "suspend",
            user,
            reason,
            until=user.suspended_until.isoformat(),
            adjudicated_games=adjudicated,
        )
    return user


def do_lift_suspension(user_id, moderator, reason) -> User:
    _require(moderator, "accounts.suspend_user")
    reason = _reason(reason)
    with transaction.atomic():
        user = locked_or_404(User, user_id, _("No such user."))
        if user.suspended_until is None:
            raise Conflict("not_suspended", _("This user is not suspended."))
        user.suspended_until = None
        user.suspension_reason = ""
        user.save(update_fields=["suspended_until", "suspension_reason"])
        ranking_changed()
        _audit(moderator, "lift_suspension", user, reason)
    return user


def do_resolve_report(report_id, moderator, reason) -> Report:
    _require(moderator, "moderation.resolve_report")
    reason = _reason(reason)
    with transaction.atomic():
        report = locked_or_404(Report, report_id, _("No such report."))
        if report.status == Report.Status.RESOLVED:
            raise Conflict("resolved", _("This report is already closed."))
        report.status = Report.Status.RESOLVED
        report.resolved_by = moderator
        report.resolved_at = timezone.now()
        report.save(update_fields=["status", "resolved_by", "resolved_at"])
        _audit(moderator, "resolve_report", report, reason)
    return report


# -- players' side ----------------------------------------------------------------------

REPORTS = Limit("reports", 10, 3600, _("Too many reports in an hour; the moderators will look."))


def do_report(user, reason, game_id=None, message_id=None) -> Report:
    """A player reports a game or a chat message to the moderators (not a guest: it
    plays only the computer, and a throwaway account is no one to answer)."""
    refuse_guest(user, "report")
    if (game_id is None) == (message_id is None):
        raise BadRequest("bad_request", _("Report either a 'game' or a 'message'."))
    reason = _reason(reason)
    REPORTS.hit(user.pk)
    if message_id is not None:
        unknown = _("No such message in your games.")
        shown = ChatMessage.objects.filter(hidden=False)
        message = locked_or_404(shown, message_id, unknown, lock=False)
        if access_game(user, message.game_id).seat is None:
            raise NotFound("not_found", unknown)
        return Report.objects.create(reporter=user, message=message, reason=reason)
    game = access_game(user, game_id).game
    return Report.objects.create(reporter=user, game=game, reason=reason)
