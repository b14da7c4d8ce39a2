"""Bot accounts: a person's program that plays through the API (docs/bots.md, "Bring
your own bot").

An account becomes a bot account once and for good (``do_become_bot_account``), only
while it has nothing a program's play would change the meaning of: no game played or
under way, no open invitation, no holiday to come, no tournament entered, and only as
a person's own account (not a guest's, not a computer opponent's, not staff's). The apps
above this one know the games, invitations and tournaments: each adds its own check to
``upgrade_checks`` when it is ready.
"""

from __future__ import annotations

from collections.abc import Callable

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from shanghaien.lib.errors import Conflict

from .models import User

# Checks of the locked account row before it becomes a bot account: each raises a
# ``Conflict`` that says what stands in the way (the games app: games and invitations;
# the tournaments app: entries).
upgrade_checks: list[Callable[[User], None]] = []


def do_become_bot_account(user) -> User:
    """Make ``user``'s account a bot account, or refuse (409) and change nothing."""
    with transaction.atomic():
        row = User.objects.select_for_update().get(pk=user.pk)
        if row.bot_account:
            raise Conflict("already_bot_account", _("This account is a bot account already."))
        if row.is_computer:
            raise Conflict(
                "computer_account", _("A computer opponent's account cannot be a bot account.")
            )
        if row.is_guest:
            message = _("A guest's account cannot be a bot account: sign up first.")
            raise Conflict("guest_account", message)
        if row.is_staff or row.is_superuser:
            message = _("A staff account cannot be a bot account: make a new account for it.")
            raise Conflict("staff_account", message)
        if row.holidays.filter(end__gte=timezone.now().date()).exists():
            message = _("A bot account takes no holidays: cancel the ones you declared first.")
            raise Conflict("holidays_declared", message)
        for check in upgrade_checks:
            check(row)
        row.bot_account = True
        row.save(update_fields=["bot_account"])
    return row
