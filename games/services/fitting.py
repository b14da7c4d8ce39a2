"""Open invitations that fit: the limits an open invitation may set on who accepts it (a
rating range, a pace), checked where an invitation is accepted and shown in the lobby.

A player's figures are the ones the site shows: the rating of ``ratings.queries`` rounded
to whole points (a player with no rated game yet counts as the rating everyone starts
with), and the pace ``player_records`` keeps as each game ends, in days per move to one
decimal (a player with no finished game yet has no pace, and meets any pace limit). The
lobby's lists and the service compare the same figures, so what the lobby offers is what
accepting allows.

A time bank game counts like any other: the pace is the player's average time per turn,
and a turn of a bank game counts at most what it began with (``player_records``), as a
turn of a game with days per move counts at most those days. A pace limit on a bank
game's invitation reads the same figure: days per move on average, whatever the clock.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Q
from django.utils import formats
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from ratings import queries as rating_queries
from ratings.glicko2 import DEFAULT_RATING
from shanghaien.lib.errors import BadRequest, Forbidden

from ..models import Invitation, PlayerRecord

# Sane bounds of a limit: ratings as Glicko-2 gives them in practice, a pace up to the
# longest time per move a game may have.
RATING_LOWEST, RATING_HIGHEST = 100, 3000
PACE_LONGEST = 14
DAY = 86400


@dataclass(frozen=True)
class Standing:
    """A player's figures as the limits compare them."""

    rating: int  # as shown, whole points
    rated: bool  # False: no rated game yet (``rating`` is the starting one)
    pace: float | None  # days per move to one decimal; None: no finished game yet


def standing_of(user) -> Standing:
    """Two reads of one row each, whatever the player's history."""
    shown = rating_queries.shown_rating(user.pk)
    seconds = PlayerRecord.objects.filter(user_id=user.pk).values_list("pace", flat=True).first()
    pace = None if seconds is None else round(seconds / DAY, 1)
    rated = shown is not None
    return Standing(rating=shown if rated else round(DEFAULT_RATING), rated=rated, pace=pace)


def check_limits(to, min_rating, max_rating, max_pace) -> dict:
    """The validated limits of a new invitation (each None: no limit)."""
    limits = {"min_rating": min_rating, "max_rating": max_rating, "max_pace": max_pace}
    for name in ("min_rating", "max_rating"):
        value = limits[name]
        if value is not None and (
            type(value) is not int or not RATING_LOWEST <= value <= RATING_HIGHEST
        ):
            message = _("'%(name)s' is a whole number from %(low)d to %(high)d, or empty.")
            raise BadRequest(
                "bad_limits", message % {"name": name, "low": RATING_LOWEST, "high": RATING_HIGHEST}
            )
    if max_pace is not None and (type(max_pace) is not int or not 1 <= max_pace <= PACE_LONGEST):
        message = _("'max_pace' is a whole number of days from 1 to %(high)d, or empty.")
        raise BadRequest("bad_limits", message % {"high": PACE_LONGEST})
    if min_rating is not None and max_rating is not None and min_rating > max_rating:
        message = _("The lowest rating (%(low)d) is above the highest (%(high)d).")
        raise BadRequest("bad_limits", message % {"low": min_rating, "high": max_rating})
    if to and any(v is not None for v in limits.values()):
        message = _(
            "Limits on rating and pace are for open invitations: leave the player's name "
            "empty, or the limits."
        )
        raise BadRequest("bad_limits", message)
    return limits


def refusal(invitation: Invitation, standing: Standing) -> str | None:
    """Why the player of ``standing`` may not accept ``invitation`` (the first limit they
    miss, naming it and their own figure), or None."""
    low, high = invitation.min_rating, invitation.max_rating
    rating = standing.rating
    if (low is not None and rating < low) or (high is not None and rating > high):
        if low is not None and high is not None:
            rule = _("Only players rated %(low)d–%(high)d may accept;")
        elif low is not None:
            rule = _("Only players rated %(low)d or more may accept;")
        else:
            rule = _("Only players rated %(high)d or less may accept;")
        if standing.rated:
            yours = _("your rating is %(rating)d.")
        else:
            yours = _("you have no rated game yet and count as %(rating)d.")
        figures = {"low": low or 0, "high": high or 0, "rating": rating}
        return f"{rule % figures} {yours % figures}"
    limit, pace = invitation.max_pace, standing.pace
    if limit is not None and pace is not None and pace > limit:
        rule = ngettext(
            "Only players who take at most %(n)d day per move on average may accept;",
            "Only players who take at most %(n)d days per move on average may accept;",
            limit,
        )
        yours = _("you take %(pace)s days per move.")
        shown = formats.number_format(pace, decimal_pos=1)
        return f"{rule % {'n': limit}} {yours % {'pace': shown}}"
    return None


def fits(standing: Standing) -> Q:
    """The invitations whose limits ``standing`` meets: ``refusal`` as a filter."""
    rating = standing.rating
    q = (Q(min_rating__isnull=True) | Q(min_rating__lte=rating)) & (
        Q(max_rating__isnull=True) | Q(max_rating__gte=rating)
    )
    if standing.pace is not None:
        q &= Q(max_pace__isnull=True) | Q(max_pace__gte=standing.pace)
    return q


def check_fits(invitation: Invitation, user) -> None:
    """Refuse ``user`` an invitation whose limits they miss (an invitation without limits
    reads nothing)."""
    limits = (invitation.min_rating, invitation.max_rating, invitation.max_pace)
    if all(limit is None for limit in limits):
        return
    reason = refusal(invitation, standing_of(user))
    if reason is not None:
        raise Forbidden("outside_limits", reason)
