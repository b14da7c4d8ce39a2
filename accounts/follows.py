"""Following players: no consent is asked (the followed player is not told), and a block
overrides it. While either of two players blocks the other, neither can follow the other,
and blocking removes the follows between them both ways (``accounts.blocks.do_block``,
in the same transaction); the reads leave out a blocked pair as well, should a block have
been made some other way (the admin).

A player follows ``FOLLOWS_MAX`` players at most, so that the friends page reads a
bounded list.
"""

from __future__ import annotations

from django.db import IntegrityError, transaction
from django.db.models import Exists, OuterRef, Q
from django.db.models.functions import Upper
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from shanghaien.lib.errors import BadRequest, Conflict, Forbidden, NotFound
from shanghaien.lib.input import username as clean_username

from .models import Block, Follow, User

FOLLOWS_MAX = 200
REFUSED_TO_GUESTS = gettext_lazy("Sign up to follow other players.")


def _followable(username) -> User:
    name = clean_username(username, "username")  # not a name: bad_request
    other = User.objects.filter(
        username__iexact=name, is_active=True, guest_until__isnull=True
    ).first()
    if other is None:
        raise NotFound("no_such_user", _("There is no player called %(name)r.") % {"name": name})
    return other


def check_follow(user, username) -> User:
    """The player ``user`` may follow, by name; else the reason."""
    if user.is_guest:
        raise Forbidden("guest", REFUSED_TO_GUESTS)
    other = _followable(username)
    if other.pk == user.pk:
        raise BadRequest("cannot_follow_yourself", _("You cannot follow yourself."))
    if Block.between(user, other):
        message = _("You cannot follow %(name)s: one of you blocks the other.")
        raise Forbidden("blocked", message % {"name": other.username})
    return other


def do_follow(user, username) -> Follow:
    """Follow a player (following again changes nothing)."""
    other = check_follow(user, username)
    with transaction.atomic():
        # the follower's row locked: two follows at once cannot both take the last place
        User.objects.select_for_update().filter(pk=user.pk).first()
        existing = Follow.objects.filter(follower=user, followed=other).first()
        if existing is not None:
            return existing
        if Follow.objects.filter(follower=user).count() >= FOLLOWS_MAX:
            message = ngettext(
                "You follow %(n)d player, the most: unfollow one first.",
                "You follow %(n)d players, the most: unfollow one first.",
                FOLLOWS_MAX,
            )
            raise Conflict("too_many_follows", message % {"n": FOLLOWS_MAX})
        try:
            with transaction.atomic():
                return Follow.objects.create(follower=user, followed=other)
        except IntegrityError:  # pragma: no cover (the lock above orders two at once)
            return Follow.objects.get(follower=user, followed=other)


def do_unfollow(user, username) -> None:
    """Stop following a player (not following them changes nothing)."""
    name = clean_username(username, "username")
    Follow.objects.filter(follower=user, followed__username__iexact=name).delete()


def remove_between(a, b) -> None:
    """The follows between two players, both ways: a block between them (``do_block``)."""
    Follow.objects.filter(Q(follower=a, followed=b) | Q(follower=b, followed=a)).delete()


def _unblocked():
    # neither the follower blocks the followed nor the other way round
    return ~Exists(
        Block.objects.filter(
            Q(user=OuterRef("follower"), blocked=OuterRef("followed"))
            | Q(user=OuterRef("followed"), blocked=OuterRef("follower"))
        )
    )


def follows(user, other) -> bool:
    """Whether ``user`` follows ``other`` (and no block stands between them)."""
    if not user.is_authenticated:
        return False
    return Follow.objects.filter(follower=user, followed=other).filter(_unblocked()).exists()


def followed_by(user) -> list[User]:
    """The players ``user`` follows, by name (``FOLLOWS_MAX`` at most), who can still be
    found: active, and no block between the two."""
    return [
        follow.followed
        for follow in Follow.objects.filter(follower=user, followed__is_active=True)
        .filter(_unblocked())
        .select_related("followed")
        .order_by(Upper("followed__username"))[:FOLLOWS_MAX]
    ]


def followed_among(user, ids) -> set[int]:
    """Which of the players ``ids`` ``user`` follows (a lobby's senders)."""
    ids = list(ids)
    if not ids or not user.is_authenticated:
        return set()
    found = Follow.objects.filter(follower=user, followed_id__in=ids).filter(_unblocked())
    return set(found.values_list("followed_id", flat=True))
