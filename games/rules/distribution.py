"""Sharing out the tavern after a Shanghai, card by card."""

from __future__ import annotations

from .state import TAVERN_SIZE, CardOutcome, GameState, RoundReport


def neighbour_pips(state: GameState, seat: int, index: int) -> int:
    """The pips of a player's dice on the cards beside screen slot ``index``.

    A die stands on the card whose number it shows, so its pips are that number.
    """
    dice = state.players[seat].dice
    return sum(dice[j] * state.number_of(j) for j in (index - 1, index + 1) if 0 <= j < TAVERN_SIZE)


def outcome(state: GameState, index: int) -> CardOutcome:
    card = state.tavern[index]
    assert card is not None
    counts = (state.players[0].dice[index], state.players[1].dice[index])
    number = state.number_of(index)
    neighbours = None
    if counts == (0, 0):
        to, reason = None, "unclaimed"
    elif 0 in counts:
        to, reason = (0 if counts[0] else 1), "alone"
    elif counts[0] != counts[1]:
        to, reason = (0 if counts[0] > counts[1] else 1), "majority"
    else:
        neighbours = (neighbour_pips(state, 0, index), neighbour_pips(state, 1, index))
        if neighbours[0] == neighbours[1]:
            to, reason = None, "tie"
        else:
            to, reason = (0 if neighbours[0] > neighbours[1] else 1), "neighbours"
    return CardOutcome(card, counts, number, neighbours, to, reason)


def distribute(state: GameState, called_by: int) -> RoundReport:
    assert state.direction is not None
    cards = tuple(outcome(state, i) for i in range(TAVERN_SIZE))
    return RoundReport(state.round, called_by, state.direction, cards)
