"""Notices to a player (``models.Notice``): given by the moderators' service, shown at
the top of every page of the player's until dismissed (``notices_shown``, a context
processor), dismissed by the player."""

from __future__ import annotations

from functools import cache

from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from shanghaien.lib.db import locked_or_404

from .models import NOTICE_SUBJECT_MAX, Notice

# The notices a page shows at most, oldest first; the next ones follow as these go.
SHOWN = 3


def give_notice(user, subject: str, body: str) -> Notice:
    """A notice for ``user``, already in their language (the caller's transaction)."""
    return Notice.objects.create(user=user, subject=str(subject)[:NOTICE_SUBJECT_MAX], body=body)


def do_dismiss_notice(user, notice_id) -> None:
    """The player has read it: it is no longer shown. Dismissing it again does nothing;
    another player's notice is not found."""
    mine = Notice.objects.filter(user=user)
    notice = locked_or_404(mine, notice_id, _("No such notice."), lock=False)
    if notice.dismissed_at is None:
        Notice.objects.filter(pk=notice.pk, dismissed_at__isnull=True).update(
            dismissed_at=timezone.now()
        )


def shown(user) -> list[Notice]:
    """The notices to show the player, oldest first (on ``notice_shown_idx``)."""
    return list(
        Notice.objects.filter(user=user, dismissed_at__isnull=True).order_by("created_at", "id")[
            :SHOWN
        ]
    )


def notices_shown(request):
    """The logged-in player's notices for the page (``templates/accounts/_notices.html``),
    read when the page shows them: once."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}
    return {"notices_shown": cache(lambda: shown(user))}
