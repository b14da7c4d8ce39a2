"""What happened, written to the outbox: the services call these when something a
player may want to hear of happens (their turn, an invitation, a deadline near, a game
ended on time), and the worker once a day for the digests.

Each player's choices are ``preferences.wants``; the worker sends what is queued
(``send``), and skips what no longer applies. A push is queued once for each of the
player's devices (``PushSubscription``), so that each is retried, or forgotten, on its
own.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.db.models import Exists, OuterRef
from django.utils import timezone

from accounts.models import PushSubscription, next_digest_at

from ..models import Game, Invitation
from ..worker_stop import stopping
from .kinds import EMAIL, PUSH
from .models import Notification
from .preferences import wanting, wants


def queue(user, kind: str, key: str, game: Game | None = None) -> None:
    """Write an email to the outbox, once per (user, kind, key); the worker sends it."""
    try:
        with transaction.atomic():
            Notification.objects.create(user=user, kind=kind, key=key, game=game)
    except IntegrityError:
        pass  # already queued: at most one


def queue_push(user, kind: str, key: str, game: Game | None = None) -> bool:
    """Write a push to the outbox for each of the player's devices, once per (device,
    kind, key). True if they have a device."""
    devices = PushSubscription.objects.filter(user=user).values_list("pk", flat=True)
    rows = [
        Notification(
            user=user,
            kind=kind,
            key=key,
            game=game,
            channel=Notification.Channel.PUSH,
            subscription_id=pk,
        )
        for pk in devices
    ]
    Notification.objects.bulk_create(rows, ignore_conflicts=True)  # already queued: once
    return bool(rows)


def tell(user, kind: str, key: str, game: Game | None = None) -> bool:
    """Queue what the player chose for ``kind``: an email, a push to each device, both,
    or nothing. True if anything was."""
    told = False
    if wants(user, kind, EMAIL):
        queue(user, kind, key, game)
        told = True
    if wants(user, kind, PUSH):
        told = queue_push(user, kind, key, game) or told
    return told


def tell_each(kind: str, told) -> None:
    """``tell`` for many at once: ``told`` holds (player, key, game or None); the same
    choices apply, in a few statements whatever their number (a tournament's start tells
    hundreds of players in the transaction that starts their games)."""
    told = list(told)
    users = list({user.pk: user for user, _key, _game in told}.values())
    emails, pushes = wanting(users, kind, EMAIL), wanting(users, kind, PUSH)
    rows = [
        Notification(user=user, kind=kind, key=key, game=game)
        for user, key, game in told
        if user.pk in emails
    ]
    devices: dict[int, list[int]] = {}
    if pushes:
        found = PushSubscription.objects.filter(user_id__in=pushes).values_list("user_id", "pk")
        for user_id, pk in found:
            devices.setdefault(user_id, []).append(pk)
    rows += [
        Notification(
            user=user,
            kind=kind,
            key=key,
            game=game,
            channel=Notification.Channel.PUSH,
            subscription_id=pk,
        )
        for user, key, game in told
        for pk in devices.get(user.pk, ())
    ]
    # already queued (a second worker, a retried start): once, as ``queue`` does
    Notification.objects.bulk_create(rows, ignore_conflicts=True, batch_size=500)


# -- what the services call ---------------------------------------------------------------


def your_turn(game: Game) -> None:
    """A player's turn began: "your turn", once per game and turn."""
    mover = game.to_move
    if mover is not None:
        tell(mover, "turn", f"{game.pk}:{game.turn_number}", game)


def invited(invitation: Invitation) -> None:
    to_user = invitation.to_user
    if to_user is not None:
        tell(to_user, "invitation", str(invitation.pk))


def reminder(game: Game) -> bool:
    """A fifth of the time to move is left: one reminder per turn. True if one is queued."""
    mover = game.to_move
    if mover is None:
        return False
    return tell(mover, "reminder", f"{game.pk}:{game.turn_number}", game)


def timed_out(game: Game, players) -> None:
    for player in players:
        tell(player, "timeout", str(game.pk), game)


def noticed(notice) -> bool:
    """A moderators' notice was given (``accounts.notices``): emailed, if the player
    wants it so. True if it was queued."""
    return tell(notice.user, "notice", str(notice.pk))


def digest(user, day: str) -> bool:
    if not wants(user, "digest", EMAIL):
        return False
    queue(user, "digest", day)
    return True


# -- the worker's daily digests -----------------------------------------------------------

# The players one round of the digest job reads at most; the rest wait a round.
DIGEST_BATCH = 2000


def queue_digests(now=None) -> int:
    """One digest a day for each player who chose it and has games waiting, at
    ``DIGEST_HOUR`` of their own time zone.

    One statement finds the players whose digest is due (``user_digest_due_idx``: a
    player has a due time only while they choose the digest), each with whether a game
    waits for them (an EXISTS on the games' (status, to_move) index); the digest is queued
    under the player's local date, so at most one a day; then every due player's next
    time is set, one UPDATE per time zone among them.
    """
    now = now or timezone.now()
    users = get_user_model().objects
    waiting = Game.objects.filter(status=Game.Status.ACTIVE, to_move=OuterRef("pk"))
    due = list(
        users.filter(digest_due_at__isnull=False, digest_due_at__lte=now)
        .annotate(waiting=Exists(waiting))
        .order_by("digest_due_at", "pk")[:DIGEST_BATCH]
    )
    queued = 0
    zones: dict[str, list[int]] = {}
    for user in due:
        if stopping:
            break
        if user.waiting and user.is_active and user.email:
            day = now.astimezone(user.zone).date().isoformat()
            queued += digest(user, day)
        zones.setdefault(user.time_zone, []).append(user.pk)
    for name, ids in zones.items():
        upcoming = next_digest_at(users.model(time_zone=name).zone, now)
        users.filter(pk__in=ids, digest_due_at__isnull=False).update(digest_due_at=upcoming)
    return queued
