"""What a game's end changes besides the game's row: its seats' ``ended_at`` (the
players' lists read their pages by it) and, for a game with a result, both players'
``PlayerRecord``. Called by ``game_log.store_state`` in the transaction that ends the
game; a game ends once (moderators annul or adjudicate only games in progress), so each
game is counted once."""

from __future__ import annotations

from django.db.models import F

from ..models import Game, PlayerRecord, Seat


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
        return
    for user_id in ids:
        outcome = "won" if user_id == game.winner_id else "lost"
        PlayerRecord.objects.filter(user_id=user_id).update(
            played=F("played") + 1, **{outcome: F(outcome) + 1}
        )
