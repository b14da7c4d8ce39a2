"""What one player may start, counted on every path that starts it (docs/api.md, "Limits").

- ``starting(user, opponent)``: an invitation, or a rematch offer, from ``user`` to
  ``opponent`` (None: an open invitation). Each counts in the sender's invitations an
  hour. One to a person also counts in the invitations to that person a day (their lobby
  and mailbox are what that limit spares). One to a computer opponent starts a game at
  once: it counts instead in the computer games an hour, and is refused while the player
  has ``COMPUTER_GAMES_ACTIVE_MAX`` games against the computer under way (a guest:
  ``accounts.guest_accounts.GUEST_ACTIVE_GAMES_MAX``). The lobby's
  form, ``/play/computer/``, ``POST /api/invitations/`` and the rematch (board and API)
  all come through here, by ``invitations.do_invite`` and ``invitations.do_rematch``.
- ``bot_account_starting(user)`` and ``bot_accounts_accepting(players)``: a bot account
  (docs/bots.md, "Bring your own bot") has at most ``settings.BOT_ACCOUNT_GAMES`` games
  under way. Its open invitations count as games to come: it invites, offers a rematch,
  opens an invitation or plays the computer only below the limit; a game it would join
  by an acceptance (its own or the other player's) starts only below it. Past it:
  429 ``too_many_games`` with ``Retry-After``.
- ``analysis_begins(game)``: when the analysis of a game that just finished may begin.
  Every person who played it may cause ``ANALYSES_PER_HOUR`` analyses in a clock hour;
  one past that waits, queued, for the first hour with room for it: nothing is dropped,
  and the game's end never waits on this.

Each counter lives in Django's cache (``shanghaien.lib.ratelimit``), shared by every
process with ``REDIS_URL``. The caller holds the sender's row locked
(``invitations._check_sender``), so two requests at once cannot both take the last game
against the computer.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime

from django.conf import settings
from django.core.cache import cache
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from accounts.guest_accounts import GUEST_ACTIVE_GAMES_MAX
from accounts.models import User
from shanghaien.lib.errors import RateLimited
from shanghaien.lib.ratelimit import Limit

from ..models import Game, Invitation, Seat

log = logging.getLogger(__name__)

# What one player may send, so that nobody can flood another's lobby or mailbox.
INVITATIONS_PER_HOUR = Limit("invitations", 20, 3600, _("At most 20 invitations an hour."))
INVITATIONS_TO_ONE_PER_DAY = Limit(
    "invitations-to", 5, 24 * 3600, _("At most 5 invitations a day to the same player.")
)
COMPUTER_GAMES_ACTIVE_MAX = 3  # under way at once, per player
COMPUTER_GAMES_PER_HOUR = Limit(
    "computer-games", 10, 3600, _("At most 10 games against the computer an hour.")
)
# Asked to try again this long after the refusal of a fourth game under way: a game
# against the computer can be resigned at any moment.
ACTIVE_RETRY_SECONDS = 60

# Asked to try again this long after a bot account's refusal: a program's games move fast.
BOT_ACCOUNT_RETRY_SECONDS = 60

ANALYSES_PER_HOUR = 10  # the analyses one person's finished games start in a clock hour
ANALYSIS_HOURS_AHEAD = 24 * 7  # a deferred analysis waits at most this many hours


def starting(user, opponent) -> None:
    """Count one invitation or rematch of ``user``'s to ``opponent``, or refuse it with
    ``RateLimited``. Call inside the transaction that holds the sender's row locked."""
    bot_account_starting(user)
    if opponent is not None and opponent.is_computer:
        _check_active_computer_games(user)
    INVITATIONS_PER_HOUR.hit(user.pk)
    if opponent is None:
        return
    if opponent.is_computer:
        COMPUTER_GAMES_PER_HOUR.hit(user.pk)
    else:
        INVITATIONS_TO_ONE_PER_DAY.hit(f"{user.pk}:{opponent.pk}")


def active_computer_games(user) -> int:
    """The games against a computer opponent ``user`` plays now."""
    return (
        Game.objects.filter(status=Game.Status.ACTIVE, seats__user=user)
        .filter(seats__user__bot_level__gt="")
        .count()
    )


def _check_active_computer_games(user) -> None:
    count = active_computer_games(user)
    if getattr(user, "is_guest", False) and count >= GUEST_ACTIVE_GAMES_MAX:
        message = _(
            "As a guest you play one game at a time: finish or resign it first, or sign up "
            "to play several."
        )
        raise RateLimited(message, ACTIVE_RETRY_SECONDS)
    if count >= COMPUTER_GAMES_ACTIVE_MAX:
        message = ngettext(
            "You have %(n)d game against the computer under way: finish it or resign it "
            "before you start another.",
            "You have %(n)d games against the computer under way: finish one or resign it "
            "before you start another.",
            count,
        )
        raise RateLimited(message % {"n": count}, ACTIVE_RETRY_SECONDS)


def games_under_way(user) -> int:
    return Game.objects.filter(status=Game.Status.ACTIVE, seats__user=user).count()


def bot_account_games(user) -> tuple[int, int]:
    """A bot account's games under way, and its invitations still open."""
    open_ = Invitation.objects.filter(from_user=user, status=Invitation.Status.OPEN).count()
    return games_under_way(user), open_


def _too_many_games(user, count: int, own: bool):
    limit = settings.BOT_ACCOUNT_GAMES
    if own:
        message = ngettext(
            "A bot account has at most %(n)d game under way, its open invitations counted: "
            "%(count)d now. Finish a game or cancel an invitation first.",
            "A bot account has at most %(n)d games under way, its open invitations counted: "
            "%(count)d now. Finish a game or cancel an invitation first.",
            limit,
        )
    else:
        message = ngettext(
            "The bot account %(name)s has its %(n)d game under way: try again later.",
            "The bot account %(name)s has its %(n)d games under way: try again later.",
            limit,
        )
    text = message % {"n": limit, "count": count, "name": user.username}
    return RateLimited(text, BOT_ACCOUNT_RETRY_SECONDS, code="too_many_games")


def bot_account_starting(user) -> None:
    """Refuse (429 ``too_many_games``) a bot account's new invitation or rematch offer,
    to anyone or to the computer, while its games under way and open invitations reach
    ``BOT_ACCOUNT_GAMES``. The caller holds the account's row locked."""
    if not user.bot_account:
        return
    active, open_ = bot_account_games(user)
    if active + open_ >= settings.BOT_ACCOUNT_GAMES:
        raise _too_many_games(user, active + open_, own=True)


def bot_accounts_accepting(players, accepting) -> None:
    """Refuse (429 ``too_many_games``) an acceptance that would start a game for a bot
    account among ``players`` with ``BOT_ACCOUNT_GAMES`` games under way already; its
    open invitations are not counted here (the one accepted is among them). Locks each
    bot account's row first, so that two acceptances at once cannot both take its last
    place. ``accepting``: the player who accepts (told in their own words)."""
    bots = sorted((p for p in players if p.bot_account), key=lambda p: p.pk)
    for bot in bots:
        User.objects.select_for_update().filter(pk=bot.pk).first()
        active = games_under_way(bot)
        if active >= settings.BOT_ACCOUNT_GAMES:
            raise _too_many_games(bot, active, own=bot.pk == accepting.pk)


def analysis_begins(game: Game) -> datetime:
    """When the analysis of ``game``, which just finished, may begin: at its end, unless
    one of its players has had ``ANALYSES_PER_HOUR`` analyses begin in this clock hour;
    then at the start of the first later hour with room for every one of them.

    Counted in the cache, per person and hour. Should the cache fail, the analysis begins
    at once: a game's end never fails for the sake of this bound.
    """
    ended = game.finished_at or timezone.now()
    try:
        people = list(
            Seat.objects.filter(game=game, user__bot_level="").values_list("user_id", flat=True)
        )
        hour = _reserve(people, int(ended.timestamp() // 3600), ended)
    except Exception:  # the cache is away: the analysis is not held back
        log.warning("could not count the analysis of game %s", game.pk, exc_info=True)
        return ended
    begins = datetime.fromtimestamp(hour * 3600, tz=UTC)
    return max(ended, begins)


def _reserve(people: list[int], hour: int, now: datetime) -> int:
    """The first hour from ``hour`` on in which every one of ``people`` has room for one
    more analysis; counted in each one's count of that hour."""
    last = hour + ANALYSIS_HOURS_AHEAD
    while True:
        # each count lives until its hour is over
        timeout = max(60, int((hour + 1) * 3600 - now.timestamp()) + 60)
        taken = []
        for person in people:
            key = f"analyses:{person}:{hour}"
            cache.add(key, 0, timeout=timeout)
            taken.append(key)
            if cache.incr(key) > ANALYSES_PER_HOUR and hour < last:
                for key in taken:  # this hour is full for someone: give the places back
                    cache.decr(key)
                break
        else:
            return hour
        hour += 1
