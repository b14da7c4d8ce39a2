"""Read-side helpers: what a player's lobby and lists show."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from django.contrib.auth import get_user_model
from django.db.models import (
    Case,
    IntegerField,
    Prefetch,
    Q,
    Value,
    When,
    prefetch_related_objects,
)
from django.db.models.functions import Coalesce

from .models import (
    Event,
    Game,
    GameNote,
    Invitation,
    MonthRecord,
    OpponentRecord,
    PlayerRecord,
    Seat,
    VariantRecord,
)
from .services import fitting

# A page of a player's lists: the finished games of the HTML list and of the API, and the
# API's active games (the lobby shows every game under way); a page of live games.
FINISHED_PAGE = 50
ACTIVE_PAGE = 100
# The lobby's open invitations: the newest of those a player may accept, and of the others.
OPEN_SHOWN = 50
LIVE_PAGE = 50
# What a profile shows of the records kept per opponent and per month.
PROFILE_OPPONENTS = 10
PROFILE_MONTHS = 12
RESULTS = ("won", "lost", "drawn")

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
MICROSECOND = timedelta(microseconds=1)
_CURSOR = re.compile(r"(\d{1,18})\.(\d{1,18})")
_ACTIVE_CURSOR = re.compile(r"([01])\.(\d{1,18})\.(\d{1,18})")
_LARGEST = 2**63 - 1


class BadCursor(ValueError):
    """A page cursor this server did not write."""


def _micros(moment: datetime) -> int:
    return (moment - EPOCH) // MICROSECOND


def _moment(micros: str) -> datetime:
    try:
        return EPOCH + int(micros) * MICROSECOND
    except OverflowError:
        raise BadCursor(micros) from None


def _number(digits: str) -> int:
    value = int(digits)
    if value > _LARGEST:
        raise BadCursor(digits)
    return value


@dataclass(frozen=True)
class Page:
    games: list
    next: str | None  # the cursor of the page after this one; None on the last page


@dataclass(frozen=True)
class Filters:
    """What narrows a player's list of games; None: any. ``opponent`` is a user,
    ``result`` one of ``RESULTS`` (only games that are over have one)."""

    opponent: object = None
    extra_wild: bool | None = None
    rated: bool | None = None
    result: str | None = None


ANY = Filters()
VARIANTS = {"standard": False, "extra_wild": True}
RATED = {"rated": True, "casual": False}


def filters_of(opponent="", variant="", rated="", result="") -> Filters | None:
    """The filters the list's form and the API take, by their words (each empty: any);
    None when no game can match (no player has that name). The opponent is found by name
    in any case, on the index of ``UPPER(username)``."""
    user = None
    if opponent:
        user = get_user_model().objects.filter(username__iexact=opponent).first()
        if user is None:
            return None
    return Filters(
        opponent=user,
        extra_wild=VARIANTS.get(variant),
        rated=RATED.get(rated),
        result=result if result in RESULTS else None,
    )


def _players() -> tuple:
    # Each game's two seats in seat order: not in the seats' default order, which would
    # join the games again to sort by their last move. Then their users (by primary key:
    # a join could tempt the planner to read all users) and the users' holidays, which
    # the deadline and the "away" notes need.
    return Prefetch("seats", queryset=Seat.objects.order_by("seat")), "seats__user__holidays"


def with_players(games: list) -> list:
    prefetch_related_objects(games, *_players())
    return games


def _active(user):
    # One filter() on the seat: its user and its end in the same join, which the partial
    # index seat_active_idx answers; the game's status as well, so that a game ended while
    # the previous release ran (its seats with no ended_at) is never shown as under way.
    moved = Coalesce("last_move_at", "created_at")
    waiting = Case(When(to_move=user, then=Value(1)), default=Value(0), output_field=IntegerField())
    return (
        Game.objects.filter(seats__user=user, seats__ended_at__isnull=True)
        .filter(status=Game.Status.ACTIVE)
        .annotate(waiting=waiting, moved=moved)
        .order_by("-waiting", "-moved", "-id")
    )


def games_for(user):
    """A player's games under way, the ones waiting for them first, then the most recently
    moved: read from the player's seats of unended games (an index), never their history."""
    return _active(user).prefetch_related(*_players())


def active_page(
    user, after: str | None = None, size: int | None = None, filters: Filters = ANY
) -> Page:
    """A page of ``games_for``, after the cursor ``after`` (``Page.next`` of the page
    before; ``BadCursor`` if it is not one), narrowed by ``filters``. A game that moves
    between two pages may move to another place in the order: the list of games under
    way is live. The filters narrow the player's games under way (the partial index
    seat_active_idx), never their history; none of them has a result yet."""
    size = size or ACTIVE_PAGE
    found = _active(user)
    if filters.result is not None or filters.opponent == user:
        found = found.none()  # no game under way has a result; nobody plays themselves
    if filters.opponent is not None:
        found = found.filter(seats__user=filters.opponent)  # a second join: the other seat
    if filters.extra_wild is not None:
        found = found.filter(extra_wild=filters.extra_wild)
    if filters.rated is not None:
        found = found.filter(rated=filters.rated)
    if after is not None:
        match = _ACTIVE_CURSOR.fullmatch(after)
        if match is None:
            raise BadCursor(after)
        waiting, moved, pk = int(match[1]), _moment(match[2]), _number(match[3])
        found = found.filter(
            Q(waiting__lt=waiting)
            | Q(waiting=waiting, moved__lt=moved)
            | Q(waiting=waiting, moved=moved, id__lt=pk)
        )
    games = with_players(list(found[: size + 1]))
    more = len(games) > size
    games = games[:size]
    last = games[-1] if more else None
    cursor = f"{last.waiting}.{_micros(last.moved)}.{last.pk}" if last else None
    return Page(games, cursor)


def finished_page(
    user, before: str | None = None, size: int | None = None, filters: Filters = ANY
) -> Page:
    """A page of a player's games that are over, whatever ended them, the last to end
    first (then the highest id), after the cursor ``before`` (``Page.next`` of the page
    before; ``BadCursor`` if it is not one), narrowed by ``filters``. Read from the
    player's seats on the index seat_ended_list_idx (seat_opponent_idx against one
    opponent), whose last columns are the other filters' (the seat's copies of the
    game's, ``player_records``), checked in the index: a page costs the same whatever the
    player's history; a game that ends between two pages goes to the top of the list and
    shifts nothing below.

    Each game carries the ``ending_note`` its ``game_ended`` event keeps (a moderator's
    reason, "" for any other game), read for the annulled games of the page only."""
    size = size or FINISHED_PAGE
    seats = Seat.objects.filter(user=user, ended_at__isnull=False)
    if filters.opponent is not None:
        seats = seats.filter(opponent=filters.opponent)
    if filters.result is not None:
        seats = seats.filter(outcome=filters.result)
    if filters.rated is not None:
        seats = seats.filter(rated=filters.rated)
    if filters.extra_wild is not None:
        seats = seats.filter(extra_wild=filters.extra_wild)
    if before is not None:
        match = _CURSOR.fullmatch(before)
        if match is None:
            raise BadCursor(before)
        ended, pk = _moment(match[1]), _number(match[2])
        # ended_at <= the cursor's bounds the index range; the rest picks within it
        seats = seats.filter(ended_at__lte=ended).filter(Q(ended_at__lt=ended) | Q(game_id__lt=pk))
    rows = list(seats.select_related("game").order_by("-ended_at", "-game_id")[: size + 1])
    more = len(rows) > size
    rows = rows[:size]
    games = with_players([row.game for row in rows])
    annulled = [g.pk for g in games if g.status == Game.Status.ANNULLED]
    notes = {}
    if annulled:
        endings = Event.objects.filter(game_id__in=annulled, kind="game_ended")
        notes = {
            game_id: (payload or {}).get("note") or ""
            for game_id, payload in endings.values_list("game_id", "payload")
        }
    for game in games:
        game.ending_note = notes.get(game.pk, "")
    cursor = f"{_micros(rows[-1].ended_at)}.{rows[-1].game_id}" if more else None
    return Page(games, cursor)


def live_page(after: str | None = None, size: int | None = None) -> Page:
    """A page of the games under way that are listed to watch (``Game.listed``), the
    newest move first (then the highest id), after the cursor ``after`` (``Page.next`` of
    the page before; ``BadCursor`` if it is not one), on the partial index game_live_idx.
    Each game carries its players by seat (``players``). The list is live: a game that
    moves between two pages goes to the top and is not shown again further down."""
    size = size or LIVE_PAGE
    # listed: under way (cleared as a game ends), and a last move since it started
    found = Game.objects.filter(listed=True).only(
        "id", "round", "last_move_at", "extra_wild", "rated", "days_per_move", "status"
    )
    if after is not None:
        match = _CURSOR.fullmatch(after)
        if match is None:
            raise BadCursor(after)
        moved, pk = _moment(match[1]), _number(match[2])
        found = found.filter(last_move_at__lte=moved).filter(
            Q(last_move_at__lt=moved) | Q(id__lt=pk)
        )
    games = list(found.order_by("-last_move_at", "-id")[: size + 1])
    more = len(games) > size
    games = games[:size]
    prefetch_related_objects(
        games, Prefetch("seats", queryset=Seat.objects.order_by("seat").select_related("user"))
    )
    for game in games:
        game.players = [seat.user for seat in game.seats.all()]
    cursor = f"{_micros(games[-1].last_move_at)}.{games[-1].pk}" if more else None
    return Page(games, cursor)


def records_of(user) -> dict:
    """What a profile shows of a player's finished games besides the record: the most
    played opponents who signed up (``opponents``, with their user), each variant (``variants``: the
    one without the extra wild card first) and the last months with a game (``months``,
    the latest first), each with played, won, lost, drawn. Three queries on the records'
    indexes, whatever the player's history."""
    opponents = (
        OpponentRecord.objects.filter(user=user)
        .filter(opponent__guest_until__isnull=True)  # a guest is shown nowhere else either
        .select_related("opponent")
        .order_by("-played", "opponent_id")[:PROFILE_OPPONENTS]
    )
    variants = VariantRecord.objects.filter(user=user).order_by("extra_wild")
    months = MonthRecord.objects.filter(user=user).order_by("-month")[:PROFILE_MONTHS]
    return {"opponents": list(opponents), "variants": list(variants), "months": list(months)}


def has_ended_games(user) -> bool:
    return Seat.objects.filter(user=user, ended_at__isnull=False).exists()


def invitations_for(user) -> dict:
    """Open invitations a user can act on: received, sent, and open to anyone; the open
    ones split into those the user may accept (``open``) and the others, each with the
    reason its limits give (``not_for_you``: pairs of the invitation and the reason).

    Each list of open invitations is a page of the newest (``OPEN_SHOWN``), read on the
    partial index invitation_open_idx; the two filters are ``fitting.fits`` and its
    negation, so an invitation is in exactly one of them."""
    base = Invitation.objects.filter(status=Invitation.Status.OPEN).select_related(
        "from_user", "to_user"
    )
    standing = fitting.standing_of(user)
    anyone = base.filter(to_user__isnull=True).exclude(from_user=user).order_by("-created_at")
    fit = fitting.fits(standing)
    others = list(anyone.exclude(fit)[:OPEN_SHOWN])
    return {
        "received": list(base.filter(to_user=user)),
        "sent": list(base.filter(from_user=user)),
        "open": list(anyone.filter(fit)[:OPEN_SHOWN]),
        "not_for_you": [(i, fitting.refusal(i, standing)) for i in others],
    }


def record_of(user) -> dict:
    """Finished games played, won, lost and drawn: the counts kept as each game ends."""
    row = PlayerRecord.objects.filter(user=user).values("played", "won", "lost", "drawn").first()
    return row or {"played": 0, "won": 0, "lost": 0, "drawn": 0}


def bot_of_level(level: str):
    """The computer opponent's account of ``level`` (made by accounts migration 0010)."""
    return get_user_model().objects.get(bot_level=level)


# -- the games waiting for a player: the header's count and its "next game" -----------------

# How many waiting games' ids a lobby socket's frame names (oldest first): enough for any
# board to tell whether its own game is among them.
WAITING_IDS = 50


def waiting(user):
    """The active games whose turn is ``user``'s, the turn that began first first (Yucata's
    "next game": the one waiting longest; equal times by id). On ``game_waiting_idx``."""
    return Game.objects.filter(status=Game.Status.ACTIVE, to_move=user).order_by(
        "turn_started_at", "id"
    )


def waiting_count(user) -> int:
    return waiting(user).count()


def waiting_ids(user) -> list[int]:
    """The ids of the games waiting for ``user``, oldest turn first, at most ``WAITING_IDS``."""
    return list(waiting(user).values_list("id", flat=True)[:WAITING_IDS])


def next_waiting(user, after=None) -> int | None:
    """The id of the game waiting longest for ``user``. With ``after`` (a game id, asked
    from that game's board), the one after it in that order, else the first other than it:
    so the header's button walks through the waiting games, oldest first, and comes round
    again. None when no (other) game waits."""
    games = waiting(user)
    current = None
    if after is not None:
        current = games.filter(pk=after).values_list("turn_started_at", "id").first()
        games = games.exclude(pk=after)
    if current is not None and current[0] is not None:
        began, pk = current
        later = games.filter(Q(turn_started_at__gt=began) | Q(turn_started_at=began, id__gt=pk))
        found = later.values_list("id", flat=True).first()
        if found is not None:
            return found
    return games.values_list("id", flat=True).first()


def note_of(seating):
    """The player's own note on the game of ``seating``; None for a watcher or no note."""
    if seating.watching:
        return None
    return GameNote.objects.filter(game=seating.game, author=seating.me).first()
