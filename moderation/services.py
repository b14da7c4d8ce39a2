"""Moderator actions and players' reports. Every moderator action writes its audit entry
in the same transaction as the change, and needs a reason."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone, translation
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from accounts.guest_accounts import refuse_guest
from accounts.models import SUSPENDED_FOR_GOOD as FOREVER
from accounts.models import User
from accounts.notices import give_notice
from accounts.tokens import close_user_tokens
from games.access import access_game, seating
from games.live import broadcast
from games.models import ChatMessage, Game
from games.notify.queue import noticed
from games.services.endings import end_by_server
from ratings.services import ranking_changed
from shanghaien.lib.db import locked_or_404
from shanghaien.lib.errors import BadRequest, Conflict, Forbidden, NotFound
from shanghaien.lib.input import clean_text
from shanghaien.lib.local_time import local_moment
from shanghaien.lib.ratelimit import Limit
from tournaments.services import entries as tournament_entries

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
        # leaves every tournament by its rules first: its games there are lost, and
        # their matches forfeited (the other games follow)
        adjudicated = tournament_entries.withdraw_everywhere(user, now=now)
        for game_id in Game.objects.filter(status=Game.Status.ACTIVE, seats__user=user).values_list(
            "pk", flat=True
        ):
            seating = access_game(user, game_id, lock=True)
            game = seating.game
            end_by_server(game, "adjudicated", winner=1 - seating.seat, now=now)
            adjudicated.append(game.pk)
        ranking_changed()  # a suspended player leaves the ranking
        close_user_tokens(user.pk)  # its tokens' streams and sockets close (after the commit)
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


def do_warn(user_id, moderator, reason) -> User:
    """A warning to a player: written to the audit log (their moderation history); what
    they are told is the caller's (``do_handle_report``)."""
    _require(moderator, "moderation.resolve_report")
    reason = _reason(reason)
    with transaction.atomic():
        user = locked_or_404(User, user_id, _("No such user."))
        if user.pk == moderator.pk:
            raise Forbidden("forbidden", _("That account cannot be warned here."))
        _audit(moderator, "warn", user, reason)
    return user


# -- the console: a report handled in one step ------------------------------------------

HIDE, WARN, SUSPEND, UNFOUNDED = "hide", "warn", "suspend", "unfounded"
# What each way of handling a report needs of the moderator, besides closing reports.
HANDLINGS = {
    HIDE: "games.hide_chatmessage",
    WARN: "moderation.resolve_report",
    SUSPEND: "accounts.suspend_user",
    UNFOUNDED: "moderation.resolve_report",
}


def _days_ok(days) -> bool:
    """None (for good) or a whole number of days, at least one."""
    return days is None or (not isinstance(days, bool) and isinstance(days, int) and days >= 1)


def reported_player(report: Report, players=None):
    """Whom a report is about: the author of the reported message, or the reporter's
    opponent in the reported game (``players``: the game's two, if read already)."""
    if report.message_id:
        return report.message.user
    if report.game_id is None:
        return None
    players = players if players is not None else seating(report.game).players
    return next((p for p in players if p.pk != report.reporter_id), None)


def do_handle_report(report_id, moderator, handling, reason, days: int | None = None) -> Report:
    """Handle an open report in one step, with a reason: hide the reported message, warn
    or suspend (``days``, or None for good) the reported player, or close it as
    unfounded. The report is closed (hiding a message closes every open report of it),
    each step goes to the audit log, the reporter hears the outcome (whether action was
    taken, not which) and the reported player what was done and why.

    All of it or nothing; a report already closed (a second click, another moderator
    first) is refused, ``Conflict`` "resolved", and nothing is done twice."""
    if handling not in HANDLINGS:
        raise BadRequest("bad_handling", _("Choose how to handle the report."))
    _require(moderator, "moderation.resolve_report")
    _require(moderator, HANDLINGS[handling])
    reason = _reason(reason)
    if handling == SUSPEND and not _days_ok(days):
        raise BadRequest("bad_days", _("Suspend for a whole number of days, or for good."))
    with transaction.atomic():
        found = locked_or_404(Report, report_id, _("No such report."), lock=False)
        # Every report this step may close, locked at once in one order, so that two
        # moderators on two reports of one message cannot lock each other out.
        closing = Report.objects.filter(pk=found.pk)
        if handling == HIDE and found.message_id:
            closing = closing | Report.objects.filter(
                message_id=found.message_id, status=Report.Status.OPEN
            )
        locked = list(closing.select_for_update().order_by("pk"))
        report = next(r for r in locked if r.pk == found.pk)
        if report.status != Report.Status.OPEN:
            by = User.objects.filter(pk=report.resolved_by_id).values_list("username", flat=True)
            raise Conflict(
                "resolved",
                _("This report was already handled by %(name)s: nothing was done again.")
                % {"name": by.first() or "?"},
            )
        report = Report.objects.select_related("message__user", "game", "reporter").get(
            pk=report.pk
        )
        target = reported_player(report)
        if handling == HIDE:
            if report.message_id is None:
                raise BadRequest("no_message", _("This report is about a game, not a message."))
            do_hide_message(report.message_id, moderator, reason)
        elif handling in (WARN, SUSPEND) and target is None:
            raise BadRequest("no_player", _("Nobody to act on: the report names no player."))
        elif handling == WARN:
            do_warn(target.pk, moderator, reason)
        elif handling == SUSPEND:
            target = do_suspend(target.pk, moderator, reason, days=days)
        now = timezone.now()
        closed = [r for r in locked if r.status == Report.Status.OPEN]
        for each in closed:
            each.status = Report.Status.RESOLVED
            each.resolved_by = moderator
            each.resolved_at = now
            each.save(update_fields=["status", "resolved_by", "resolved_at"])
            _audit(moderator, "resolve_report", each, reason, outcome=handling)
            _tell(each.reporter, _reporter_notice, each, handling)
        if handling != UNFOUNDED:
            _tell(target, _reported_notice, report, handling, reason, target)
    return report


def _tell(user, compose, *args) -> None:
    """A notice for ``user``, in their language and time zone, shown on their pages and
    emailed (``games.notify``)."""
    with (
        translation.override(user.language or settings.LANGUAGE_CODE),
        timezone.override(user.zone),
    ):
        subject, body = compose(*args)
        notice = give_notice(user, subject, body)
    noticed(notice)


def _what(report: Report) -> str:
    if report.message_id:
        return gettext("a message in game %(id)d") % {"id": report.message.game_id}
    return gettext("game %(id)d") % {"id": report.game_id}


def _reporter_notice(report: Report, handling: str) -> tuple[str, str]:
    """What the reporter is told: whether action was taken, never which (the other
    player's sanction is theirs)."""
    what = {"what": _what(report)}
    if handling == UNFOUNDED:
        body = gettext(
            "Thank you for your report of %(what)s. A moderator looked at it and found "
            "nothing against the site's rules: no action was taken."
        )
    else:
        body = gettext(
            "Thank you for your report of %(what)s. A moderator looked at it and took action."
        )
    return gettext("Your report was handled"), body % what


def _reported_notice(report: Report, handling: str, reason: str, user) -> tuple[str, str]:
    """What the reported player is told: what was done, about what, and why."""
    lines = []
    if handling == HIDE:
        subject = gettext("A moderator hid one of your messages")
        lines.append(
            gettext("Your message in game %(id)d was hidden from the chat.")
            % {"id": report.message.game_id}
        )
    elif handling == WARN:
        subject = gettext("A warning from the moderators")
        lines.append(gettext("A moderator warned you about %(what)s.") % {"what": _what(report)})
    else:
        subject = gettext("Your account is suspended")
        if user.suspended_until == FOREVER:
            lines.append(gettext("A moderator suspended your account for good."))
        else:
            lines.append(
                gettext("A moderator suspended your account until %(until)s.")
                % {"until": local_moment(user.suspended_until)}
            )
        lines.append(gettext("Any game you had in progress was awarded to your opponent."))
    if report.message_id:
        lines.append(gettext("The message: “%(text)s”") % {"text": report.message.text})
    lines.append(gettext("The reason: %(reason)s") % {"reason": reason})
    return subject, "\n".join(lines)


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
