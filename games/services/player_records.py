"""What a game's end changes besides the game's row: its seats' ``ended_at`` (the
players' lists read their pages by it) and, for a game with a result, both players'
``PlayerRecord``: the counts and the pace. Called by ``game_log.store_state`` in the
transaction that ends the game; a game ends once (moderators annul or adjudicate only
games in progress), so each game is counted once.

A player's pace is the time their turns took, on average, over their last ``PACE_GAMES``
finished games: each game's turns are read from its events as it ends (one game's log,
never the player's history) and kept as a [seconds, turns] pair, the oldest pair dropped
past ``PACE_GAMES``. A turn runs from the event before the player's first one to their
last one (their roll, any trick, their placing or Shanghai); it counts at most the game's
days per move, so a holiday or a timed-out turn weighs as the whole allowance and no
more. A turn lost on time counts at the allowance as well.
"""

from __future__ import annotations

from django.db.models import F

from ..models import Event, Game, PlayerRecord, Seat

PACE_GAMES = 20


def game_ended(game: Game, players) -> None:
    Seat.objects.filter(game_id=game.pk).update(ended_at=game.finished_at)
    if game.status != Game.Status.FINISHED:
        return  # aborted or annulled: no result to count
    ids = sorted(p.pk for p in players)  # always in this order: two games ending at once
    PlayerRecord.objects.bulk_create([PlayerRecord(user_id=i) for i in ids], ignore_conflicts=True)
    if game.winner_id is None:
        PlayerRecord.objects.filter(user_id__in=ids).update(
            played=F("played") + 1, drawn=F("drawn") + 1
        )
    else:
        for user_id in ids:
            outcome = "won" if user_id == game.winner_id else "lost"
            PlayerRecord.objects.filter(user_id=user_id).update(
                played=F("played") + 1, **{outcome: F(outcome) + 1}
            )
    _keep_paces(game, [p.pk for p in players])


def _keep_paces(game: Game, seat_users: list[int]) -> None:
    """Each player's turns in ``game`` joined to their recent ones (their rows are locked
    by the updates above, in this transaction)."""
    rows = Event.objects.filter(game_id=game.pk).order_by("seq").values_list("seat", "created_at")
    loser = None
    if game.result_reason == "timeout" and game.winner_id is not None:
        loser = 1 - seat_users.index(game.winner_id)
    times = turn_times(list(rows), game.days_per_move * 86400, timed_out=loser)
    records = PlayerRecord.objects.filter(user_id__in=seat_users).order_by("user_id")
    for record in records:
        seconds, turns = times[seat_users.index(record.user_id)]
        if not turns:
            continue
        recent = [*(record.recent_turns or []), [round(seconds), turns]][-PACE_GAMES:]
        record.recent_turns = recent
        record.pace = sum(s for s, _ in recent) / sum(t for _, t in recent)
        record.save(update_fields=["recent_turns", "pace"])


def turn_times(rows, cap: float, timed_out: int | None = None) -> dict[int, tuple[float, int]]:
    """The seconds each seat's turns took and how many, from a game's events in order as
    (seat, created_at) pairs (seat None: the server's). A run of one seat's events is a
    turn, from the event before it to its last; each turn counts ``cap`` at most.
    ``timed_out``: the seat that lost on time, whose last turn ended with the game."""
    totals = {0: [0.0, 0], 1: [0.0, 0]}
    run_seat = run_began = run_ended = previous = None

    def close():
        if run_seat is not None and run_began is not None:
            totals[run_seat][0] += min((run_ended - run_began).total_seconds(), cap)
            totals[run_seat][1] += 1

    for seat, at in rows:
        if seat != run_seat:
            close()
            run_seat, run_began = seat, previous
        run_ended, previous = at, at
    close()
    if timed_out is not None and rows and rows[-1][0] is None and len(rows) > 1:
        totals[timed_out][0] += cap
        totals[timed_out][1] += 1
    return {seat: (seconds, turns) for seat, (seconds, turns) in totals.items()}
