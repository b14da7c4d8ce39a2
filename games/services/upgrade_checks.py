"""What the games app asks of an account before it becomes a bot account
(``accounts.bot_accounts``): no game played or under way, and no open invitation."""

from __future__ import annotations

from django.db.models import Q
from django.utils.translation import gettext as _

from accounts.bot_accounts import upgrade_checks
from shanghaien.lib.errors import Conflict

from ..models import Invitation, Seat


def check_upgrade(user) -> None:
    """Refuse (409) the upgrade of an account that has a seat in any game, or an open
    invitation it sent or received (cancel or decline it first)."""
    if Seat.objects.filter(user=user).exists():
        message = _(
            "This account has played a game: only an account that has played none becomes "
            "a bot account. Make a new account for the bot."
        )
        raise Conflict("has_played", message)
    mine = Q(from_user=user) | Q(to_user=user)
    if Invitation.objects.filter(mine, status=Invitation.Status.OPEN).exists():
        message = _("Cancel or decline the account's open invitations first.")
        raise Conflict("open_invitations", message)


def connect() -> None:
    if check_upgrade not in upgrade_checks:
        upgrade_checks.append(check_upgrade)
