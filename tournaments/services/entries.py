"""Creating a tournament, signing up and leaving, withdrawing once it runs, cancelling.

Every ``do_*`` runs in one transaction; a bad value raises ``BadRequest`` naming the
field, a refusal ``Forbidden``/``Conflict`` with a code (see each function) and changes
nothing. Locks are always taken in the same order, games before their tournament: a
game's end (``stages.game_ended``, called with the game locked) locks the
tournament, so ``do_withdraw`` and ``do_cancel`` lock the games they end first.
"""

from __future__ import annotations

import datetime as dt

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from accounts.bot_accounts import upgrade_checks
from games.clock import NO_BANK
from games.models import DAYS_PER_MOVE_CHOICES, Game
from games.services.endings import end_by_server
from games.services.invitations import check_bank
from shanghaien.lib.db import locked_or_404
from shanghaien.lib.errors import BadRequest, Conflict, Forbidden
from shanghaien.lib.input import clean_text

from .. import telling
from ..models import Entry, Match, Tournament
from . import stages, standings
from .stages import ratings_shown

User = get_user_model()

NAME_MAX, DESCRIPTION_MAX = 80, 500
DEADLINE_MIN, DEADLINE_MAX = dt.timedelta(hours=1), dt.timedelta(days=30)
PLAYERS_MIN, PLAYERS_MAX = 2, 256
# a round robin is one group of everyone: each plays every other twice at once
ROUND_ROBIN_MAX = 12
GROUP_SIZE_MIN, GROUP_SIZE_MAX = 3, 8
RATING_MIN, RATING_MAX = 0, 3000
# a player's own tournaments open or running at once (staff: no limit)
OWN_TOURNAMENTS_MAX = 2
DAYS_PER_MOVE = tuple(d for d, _label in DAYS_PER_MOVE_CHOICES)
FORMATS = tuple(Tournament.Format.values)
# the reason a withdrawn player's running games end with: the closest server ending
FORFEIT_REASON = "adjudicated"


def _bad(field: str, message: str):
    return BadRequest("bad_tournament", f"'{field}': {message}")


def _whole(value, field, low, high, allow_none=False):
    if value is None and allow_none:
        return None
    if type(value) is not int or not low <= value <= high:
        raise _bad(
            field, _("a whole number from %(low)d to %(high)d.") % {"low": low, "high": high}
        )
    return value


def check_tournament(user, **terms) -> dict:
    """The terms of a new tournament, checked (``BadRequest("bad_tournament", …)``
    naming the field; the time bank as an invitation's, ``BadRequest("bad_bank", …)``
    from ``games.services.invitations.check_bank``); returns the model fields."""
    now = terms.pop("now", None) or timezone.now()
    known = {
        "name",
        "format",
        "signup_deadline",
        "description",
        "extra_wild",
        "rated",
        "days_per_move",
        "bank",
        "min_rating",
        "max_rating",
        "min_players",
        "max_players",
        "group_size",
        "advance",
    }
    unknown = set(terms) - known
    if unknown:
        raise _bad(sorted(unknown)[0], _("not a term of a tournament."))
    name = clean_text(
        terms.get("name"),
        "name",
        max_length=NAME_MAX,
        invalid="bad_tournament",
        too_long="bad_tournament",
    )
    description = clean_text(
        terms.get("description", ""),
        "description",
        max_length=DESCRIPTION_MAX,
        required=False,
        multiline=True,
        invalid="bad_tournament",
        too_long="bad_tournament",
    )
    fmt = terms.get("format")
    if fmt not in FORMATS:
        raise _bad("format", _("one of %(choices)s.") % {"choices": ", ".join(FORMATS)})
    deadline = terms.get("signup_deadline")
    if not isinstance(deadline, dt.datetime) or timezone.is_naive(deadline):
        raise _bad("signup_deadline", _("a moment, with its time zone."))
    if not now + DEADLINE_MIN <= deadline <= now + DEADLINE_MAX:
        raise _bad("signup_deadline", _("from 1 hour to 30 days from now."))
    for flag in ("extra_wild", "rated"):
        if not isinstance(terms.get(flag, flag == "rated"), bool):
            raise _bad(flag, _("true or false."))
    days = terms.get("days_per_move", 3)
    if type(days) is not int or days not in DAYS_PER_MOVE:
        raise _bad(
            "days_per_move",
            _("one of %(choices)s.") % {"choices": ", ".join(map(str, DAYS_PER_MOVE))},
        )
    bank = check_bank(terms.get("bank"))
    min_rating = _whole(terms.get("min_rating"), "min_rating", RATING_MIN, RATING_MAX, True)
    max_rating = _whole(terms.get("max_rating"), "max_rating", RATING_MIN, RATING_MAX, True)
    if min_rating is not None and max_rating is not None and min_rating > max_rating:
        raise _bad("max_rating", _("at least the lowest rating."))
    top = ROUND_ROBIN_MAX if fmt == Tournament.Format.ROUND_ROBIN else PLAYERS_MAX
    low = 3 if fmt == Tournament.Format.GROUPS_KNOCKOUT else PLAYERS_MIN
    min_players = _whole(terms.get("min_players", 4), "min_players", low, top)
    max_players = _whole(terms.get("max_players", 16), "max_players", min_players, top)
    group_size = _whole(terms.get("group_size", 4), "group_size", GROUP_SIZE_MIN, GROUP_SIZE_MAX)
    advance = _whole(terms.get("advance", 2), "advance", 1, group_size - 1)
    return {
        "name": name,
        "description": description,
        "format": fmt,
        "signup_deadline": deadline,
        "extra_wild": terms.get("extra_wild", False),
        "rated": terms.get("rated", True),
        "days_per_move": days,
        **(bank.fields() if bank else NO_BANK),
        "min_rating": min_rating,
        "max_rating": max_rating,
        "min_players": min_players,
        "max_players": max_players,
        "group_size": group_size,
        "advance": advance,
    }


def _player(user, refusals: dict) -> User:
    """The player's row afresh, locked; a guest, a computer opponent, a bot account or a
    suspended player is refused."""
    row = User.objects.select_for_update().get(pk=user.pk)
    if row.is_computer:
        raise Forbidden("bot", refusals["bot"])
    if row.bot_account:  # a program's games are never rated, a tournament's may be
        raise Forbidden("bot_account", refusals["bot_account"])
    if row.is_guest:
        raise Forbidden("guest", refusals["guest"])
    if row.is_suspended:
        raise Forbidden("suspended", _("Your account is suspended."))
    return row


def do_create(user, *, now=None, **terms) -> Tournament:
    """A new tournament, open for sign-up until ``signup_deadline``; the creator is not
    entered (they join like anyone). Staff's are featured and unlimited; a player has at
    most ``OWN_TOURNAMENTS_MAX`` of their own open or running at once.

    Terms: name, format, signup_deadline, description, extra_wild, rated, days_per_move,
    bank (a ``games.clock.Bank``, its terms as a dict, or None: ``check_bank``),
    min_rating, max_rating, min_players, max_players, group_size, advance."""
    fields = check_tournament(user, now=now, **terms)
    with transaction.atomic():
        creator = _player(
            user,
            {
                "bot": _("A computer opponent cannot create a tournament."),
                "bot_account": _("A bot account cannot create a tournament."),
                "guest": _("Guests cannot create tournaments: sign up first."),
            },
        )
        if not creator.is_staff:
            own = Tournament.objects.filter(
                created_by=creator,
                status__in=[Tournament.Status.SIGNUP, Tournament.Status.RUNNING],
            ).count()
            if own >= OWN_TOURNAMENTS_MAX:
                message = ngettext(
                    "You have %(n)d tournament open or running: wait until it ends.",
                    "You have %(n)d tournaments open or running: wait until one ends.",
                    OWN_TOURNAMENTS_MAX,
                ) % {"n": OWN_TOURNAMENTS_MAX}
                raise Conflict("too_many_tournaments", message)
        tournament = Tournament.objects.create(
            created_by=creator,
            featured=creator.is_staff,
            check_at=fields["signup_deadline"],
            **fields,
        )
        standings.changed(tournament)
    return tournament


def _open(tournament_id) -> Tournament:
    tournament = locked_or_404(Tournament, tournament_id, _("No such tournament."))
    if tournament.status != Tournament.Status.SIGNUP:
        raise Conflict("not_open", _("This tournament has already started or ended."))
    return tournament


def do_join(tournament_id, user) -> Entry:
    """Sign up (until the start): within the rating bounds, not full, not suspended, not
    a guest or a computer opponent. Returns the ``Entry``. Codes: ``not_open``,
    ``already_joined``, ``full``, ``rating_too_low``, ``rating_too_high``, ``guest``,
    ``bot``, ``suspended``."""
    with transaction.atomic():
        tournament = _open(tournament_id)
        player = _player(
            user,
            {
                "bot": _("A computer opponent cannot play in a tournament."),
                "bot_account": _("A bot account cannot play in a tournament."),
                "guest": _("Guests cannot play in tournaments: sign up first."),
            },
        )
        if Entry.objects.filter(tournament=tournament, user=player).exists():
            raise Conflict("already_joined", _("You are already signed up."))
        if Entry.objects.filter(tournament=tournament).count() >= tournament.max_players:
            raise Conflict("full", _("This tournament is full."))
        low, high = tournament.min_rating, tournament.max_rating
        if low is not None or high is not None:
            rating = ratings_shown([player.pk]).get(player.pk)
            if low is not None and (rating is None or rating < low):
                message = _("This tournament is for players rated %(n)d or more.") % {"n": low}
                raise Forbidden("rating_too_low", message)
            if high is not None and rating is not None and rating > high:
                message = _("This tournament is for players rated %(n)d or less.") % {"n": high}
                raise Forbidden("rating_too_high", message)
        entry = Entry.objects.create(tournament=tournament, user=player)
        standings.changed(tournament)
    return entry


def do_leave(tournament_id, user) -> None:
    """Take back a sign-up before the start (``not_open``, ``not_joined``)."""
    with transaction.atomic():
        tournament = _open(tournament_id)
        deleted, _rows = Entry.objects.filter(tournament=tournament, user=user).delete()
        if not deleted:
            raise Conflict("not_joined", _("You are not signed up."))
        standings.changed(tournament)


def _lock_games(game_ids) -> list[Game]:
    return list(Game.objects.select_for_update().filter(pk__in=game_ids).order_by("pk"))


def _active_games(tournament_id, entry_ids=None):
    rows = Game.objects.filter(
        status=Game.Status.ACTIVE, tournament_game__match__tournament_id=tournament_id
    )
    if entry_ids is not None:
        rows = rows.filter(seats__user__in=entry_ids)
    return list(rows.values_list("pk", flat=True))


def do_withdraw(tournament_id, user, reason: str = "", now=None) -> Entry:
    """Leave a running tournament: the written rules (docs/tournaments.md). The player's
    games in progress end, won by the opponent; each undecided match of theirs is
    forfeited (decided by forfeit, the opponent the winner); results already played
    stand; their group's standings are recomputed. Codes: ``not_running``,
    ``not_joined``, ``already_withdrawn``."""
    now = now or timezone.now()
    with transaction.atomic():
        tournament = locked_or_404(Tournament, tournament_id, _("No such tournament."), lock=False)
        entry = Entry.objects.filter(tournament=tournament, user=user).first()
        if entry is None:
            raise Conflict("not_joined", _("You are not playing in this tournament."))
        withdraw(tournament, entry, reason, now)
    return entry


def withdraw(tournament, entry, reason, now) -> list[int]:
    """``do_withdraw``'s work inside the caller's transaction (also a suspension's).
    The ids of the games it ended."""
    user_id = entry.user_id
    games = _lock_games(_active_games(tournament.pk, [user_id]))
    tournament = Tournament.objects.select_for_update().get(pk=tournament.pk)
    entry = Entry.objects.select_for_update().get(pk=entry.pk)
    if tournament.status != Tournament.Status.RUNNING:
        raise Conflict("not_running", _("This tournament is not running."))
    if entry.status == Entry.Status.WITHDRAWN:
        raise Conflict("already_withdrawn", _("You have already withdrawn."))
    if entry.status == Entry.Status.OUT:
        raise Conflict("knocked_out", _("You are out of this tournament already."))
    entry.status, entry.withdrawn_at = Entry.Status.WITHDRAWN, now
    entry.save(update_fields=["status", "withdrawn_at"])
    theirs = Match.objects.filter(tournament=tournament).filter(Q(entry_a=entry) | Q(entry_b=entry))
    undecided = list(theirs.exclude(status=Match.Status.DECIDED).values_list("pk", flat=True))
    note = reason or _("withdrawn from the tournament")
    for game in games:
        seat = 0 if game.seats.get(seat=0).user_id == user_id else 1
        end_by_server(game, FORFEIT_REASON, winner=1 - seat, now=now, note=note)
    tournament.refresh_from_db()  # the games' ends wrote to it
    # each match undecided before (some its last game just decided): forfeited
    for match in (
        Match.objects.select_for_update(of=("self",))
        .filter(pk__in=undecided)
        .select_related("entry_a", "entry_b")
    ):
        winner = match.entry_b if match.entry_a_id == entry.pk else match.entry_a
        standings.decide(tournament, match, winner, Match.Decided.FORFEIT, now)
    standings.changed(tournament)
    if tournament.check_at is not None:  # the stage is over, or a match needs its third game
        stages.after_commit_check(tournament.pk)
    return [game.pk for game in games]


def withdraw_everywhere(user, reason: str = "", now=None) -> list[int]:
    """A player suspended by moderation leaves every running tournament by the same
    rules, and every one not yet started (inside the caller's transaction). The ids of
    the games it ended."""
    now = now or timezone.now()
    entries = list(
        Entry.objects.filter(
            user=user,
            status=Entry.Status.PLAYING,
            tournament__status=Tournament.Status.RUNNING,
        ).select_related("tournament")
    )
    ended = []
    for entry in entries:
        ended += withdraw(entry.tournament, entry, reason, now)
    # a sign-up not yet started is simply taken back
    signed_up = Entry.objects.filter(user=user, tournament__status=Tournament.Status.SIGNUP)
    for tournament_id in list(signed_up.values_list("tournament_id", flat=True)):
        tournament = Tournament.objects.select_for_update().get(pk=tournament_id)
        Entry.objects.filter(tournament=tournament, user=user).delete()
        standings.changed(tournament)
    return ended


def do_cancel(tournament_id, user, now=None) -> Tournament:
    """The creator (before the start) or staff (any time) cancels. Before the start the
    entries stay, the status says cancelled; a running tournament's games in progress
    are annulled (no result, no rating change); decided games stay as they were.
    Codes: ``not_allowed``, ``over``."""
    now = now or timezone.now()
    with transaction.atomic():
        tournament = locked_or_404(Tournament, tournament_id, _("No such tournament."), lock=False)
        games = _lock_games(_active_games(tournament.pk))
        tournament = locked_or_404(Tournament, tournament.pk, _("No such tournament."))
        staff = user.is_staff
        if tournament.status not in (Tournament.Status.SIGNUP, Tournament.Status.RUNNING):
            raise Conflict("over", _("This tournament is over."))
        if not staff and (
            tournament.created_by_id != user.pk or tournament.status != Tournament.Status.SIGNUP
        ):
            raise Forbidden("not_allowed", _("Only staff can cancel a running tournament."))
        tournament.status = Tournament.Status.CANCELLED
        tournament.finished_at, tournament.check_at = now, None
        tournament.save(update_fields=["status", "finished_at", "check_at"])
        for game in games:
            end_by_server(game, "annulled", winner=None, now=now)
        entries = list(Entry.objects.filter(tournament=tournament).select_related("user"))
        telling.ended(tournament, entries)
        standings.changed(tournament)
    return tournament


def check_upgrade(user) -> None:
    """Refuse (409 ``tournament_entry``) to make a bot account of a player entered in a
    tournament that is not over (``accounts.bot_accounts``): withdraw first."""
    live = (Tournament.Status.SIGNUP, Tournament.Status.RUNNING)
    if Entry.objects.filter(user=user, tournament__status__in=live).exists():
        message = _("Leave your tournaments first: a bot account plays in none.")
        raise Conflict("tournament_entry", message)


def connect() -> None:
    if check_upgrade not in upgrade_checks:
        upgrade_checks.append(check_upgrade)
