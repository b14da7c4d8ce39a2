"""What a game's end changes besides the game's row: its seats (``ended_at``, and the
columns the players' filtered lists read: the opponent, the result from each side, the
variant, rated or not) and, for a game with a result, both players' counts: their
``PlayerRecord`` and their records per opponent, per variant and per month. Called by
``game_log.store_state`` in the transaction that ends the game; a game ends once
(moderators annul or adjudicate only games in progress), so each game is counted once.

Rows are locked in one order (the kind of record, then the user's id), so two games
that end at once with a player in common wait for each other rather than deadlock.

A player's pace is the time their turns took, on average, over their last ``PACE_GAMES``
finished games: each game's turns are read from its events as it ends (one game's log,
never the player's history) and kept as a [seconds, turns] pair, the oldest pair dropped
past ``PACE_GAMES``. A turn runs from the event before the player's first one to their
last one (their roll, any trick, their placing or Shanghai); it counts at most the game's
days per move, so a holiday or a timed-out turn weighs as the whole allowance and no
more. A turn lost on time counts at the allowance as well. In a time bank game the
allowance of a turn is what that turn began with: the player's bank, followed turn by turn
from the log (what was left plus the increment, at most the cap; holidays, which the
log does not hold, are not added back, so a turn after one counts a little less at most).
"""

from __future__ import annotations

from datetime import UTC, date, timedelta

from django.db.models import Case, F, Value, When

from .. import clock
from ..models import Event, Game, MonthRecord, OpponentRecord, PlayerRecord, Seat, VariantRecord

PACE_GAMES = 20


def game_ended(game: Game, players) -> None:
    """``players``: the two users, by seat."""
    _fill_seats(game, players, ended=True)
    if game.status != Game.Status.FINISHED:
        return  # aborted or annulled: no result to count
    ids = sorted(p.pk for p in players)
    _count(PlayerRecord, game, {i: {} for i in ids})
    _count_tallies(game, players)
    _keep_paces(game, [p.pk for p in players])


def fill_ended(game: Game, players) -> None:
    """A game the previous release ended (its seats' ``ended_at`` and the players'
    ``PlayerRecord`` written, not the rest): what this release adds to an ending."""
    _fill_seats(game, players, ended=False)
    if game.status == Game.Status.FINISHED:
        _count_tallies(game, players)


def outcome_of(game: Game, user_id: int) -> str:
    """The result of ``game`` for the player ``user_id``: "won", "lost", "drawn", or ""
    for a game with no result (aborted, annulled)."""
    if game.status != Game.Status.FINISHED:
        return ""
    if game.winner_id is None:
        return "drawn"
    return "won" if game.winner_id == user_id else "lost"


def month_of(moment) -> date:
    moment = moment.astimezone(UTC)
    return date(moment.year, moment.month, 1)


def _fill_seats(game: Game, players, ended: bool) -> None:
    first, second = (p.pk for p in players)
    changes = {
        "opponent_id": Case(When(user_id=first, then=Value(second)), default=Value(first)),
        "outcome": Case(
            When(user_id=first, then=Value(outcome_of(game, first))),
            default=Value(outcome_of(game, second)),
        ),
        "extra_wild": game.extra_wild,
        "rated": game.rated,
    }
    if ended:
        changes["ended_at"] = game.finished_at
    Seat.objects.filter(game_id=game.pk).update(**changes)


def _count_tallies(game: Game, players) -> None:
    ids = sorted(p.pk for p in players)
    first, second = (p.pk for p in players)
    opponents = {first: second, second: first}
    _count(OpponentRecord, game, {i: {"opponent_id": opponents[i]} for i in ids})
    _count(VariantRecord, game, {i: {"extra_wild": game.extra_wild} for i in ids})
    month = month_of(game.finished_at)
    _count(MonthRecord, game, {i: {"month": month} for i in ids})


def _count(model, game: Game, keys: dict) -> None:
    """One more finished game on each user's row of ``model`` (``keys``: each user's id,
    in order, with what else names the row), made at need."""
    model.objects.bulk_create(
        [model(user_id=user_id, **key) for user_id, key in keys.items()], ignore_conflicts=True
    )
    for user_id, key in keys.items():
        outcome = outcome_of(game, user_id)
        model.objects.filter(user_id=user_id, **key).update(
            played=F("played") + 1, **{outcome: F(outcome) + 1}
        )


def _keep_paces(game: Game, seat_users: list[int]) -> None:
    """Each player's turns in ``game`` joined to their recent ones (their rows are locked
    by the updates above, in this transaction)."""
    rows = Event.objects.filter(game_id=game.pk).order_by("seq").values_list("seat", "created_at")
    loser = None
    if game.result_reason == "timeout" and game.winner_id is not None:
        loser = 1 - seat_users.index(game.winner_id)
    times = turn_times(
        list(rows), game.days_per_move * 86400, timed_out=loser, bank=clock.Bank.of(game)
    )
    records = PlayerRecord.objects.filter(user_id__in=seat_users).order_by("user_id")
    for record in records:
        seconds, turns = times[seat_users.index(record.user_id)]
        if not turns:
            continue
        recent = [*(record.recent_turns or []), [round(seconds), turns]][-PACE_GAMES:]
        record.recent_turns = recent
        record.pace = sum(s for s, _ in recent) / sum(t for _, t in recent)
        record.save(update_fields=["recent_turns", "pace"])


def turn_times(
    rows, cap: float, timed_out: int | None = None, bank: clock.Bank | None = None
) -> dict[int, tuple[float, int]]:
    """The seconds each seat's turns took and how many, from a game's events in order as
    (seat, created_at) pairs (seat None: the server's). A run of one seat's events is a
    turn, from the event before it to its last; each turn counts ``cap`` at most, or with
    a time ``bank``, what the seat's bank held as the turn began.
    ``timed_out``: the seat that lost on time, whose last turn ended with the game."""
    totals = {0: [0.0, 0], 1: [0.0, 0]}
    allowance = {0: cap, 1: cap}
    if bank is not None:
        allowance = dict.fromkeys((0, 1), float(bank.start_hours * clock.HOUR))
    run_seat = run_began = run_ended = previous = None

    def close():
        if run_seat is not None and run_began is not None:
            took = (run_ended - run_began).total_seconds()
            totals[run_seat][0] += min(took, allowance[run_seat])
            totals[run_seat][1] += 1
            if bank is not None:
                left = timedelta(seconds=allowance[run_seat] - took)
                allowance[run_seat] = clock.bank_after_turn(bank, left)

    for seat, at in rows:
        if seat != run_seat:
            close()
            run_seat, run_began = seat, previous
        run_ended, previous = at, at
    close()
    if timed_out is not None and rows and rows[-1][0] is None and len(rows) > 1:
        totals[timed_out][0] += allowance[timed_out]
        totals[timed_out][1] += 1
    return {seat: (seconds, turns) for seat, (seconds, turns) in totals.items()}
