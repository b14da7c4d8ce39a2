"""What a game's end changes besides the game's row: its seats (``ended_at``, and the
columns the players' filtered lists read: the opponent, the result from each side, the
variant, rated or not) and, for a game with a result, both players' counts: their
``PlayerRecord`` and their records per opponent, per variant and per month. Called by
``game_log.store_state`` in the transaction that ends the game; a game ends once
(moderators annul or adjudicate only games in progress), so each game is counted once.

Rows are locked in one order (the kind of record, then the user's id), so two games
that end at once with a player in common wait for each other rather than deadlock."""

from __future__ import annotations

from datetime import UTC, date

from django.db.models import Case, F, Value, When

from ..models import Game, MonthRecord, OpponentRecord, PlayerRecord, Seat, VariantRecord


def game_ended(game: Game, players) -> None:
    """``players``: the two users, by seat."""
    _fill_seats(game, players, ended=True)
    if game.status != Game.Status.FINISHED:
        return  # aborted or annulled: no result to count
    ids = sorted(p.pk for p in players)
    _count(PlayerRecord, game, {i: {} for i in ids})
    _count_tallies(game, players)


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
