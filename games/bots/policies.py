"""Fast one-move players: the captain's playouts use them, and ``greedy`` is also a
baseline for measuring the levels (``bench/bot_strength.py``).

Each is called as ``policy(state, mover, commands, rng)`` with the mover's playable
commands and returns one of them. Neither looks through the dice: the half of a trick
card that rolls again is left alone, as its outcome is unknown.
"""

from __future__ import annotations

from games.rules.cards import CARDS
from games.rules.distribution import outcome
from games.rules.state import TURN, GameState

from .evaluation import KEEN, NATION_INDEX, SHARP, nation_diff, start_worth, strengths, value
from .players import after

SHANGHAI, ROLL = {"type": "shanghai"}, {"type": "roll"}


def round_end_lead(state: GameState, seat: int) -> float:
    """My score minus theirs if the round were shared out now."""
    mine, theirs = strengths(state, seat)
    tricks = len(state.players[seat].tricks) - len(state.players[1 - seat].tricks)
    if state.direction is not None and state.tavern[0] is not None:
        for index, card_id in enumerate(state.tavern):
            to = outcome(state, index).to
            if to is None:
                continue
            card = CARDS[card_id]
            if card.kind == "trick":
                tricks += 1 if to == seat else -1
            else:
                crew = mine if to == seat else theirs
                crew[NATION_INDEX[card.nation]] += card.value
    return tricks + sum(nation_diff(a, b) for a, b in zip(mine, theirs, strict=True))


def holding_lead(state: GameState, seat: int) -> float:
    """My score minus theirs with the crews and tricks as they are now."""
    mine, theirs = strengths(state, seat)
    tricks = len(state.players[seat].tricks) - len(state.players[1 - seat].tricks)
    return tricks + sum(nation_diff(a, b) for a, b in zip(mine, theirs, strict=True))


def _best_by(score, state: GameState, mover: int, commands: list, rng) -> dict:
    best, choice = None, []
    for command in commands:
        if command["type"] == "trick" and command["half"] == "reroll":
            continue  # its outcome is not known
        points = score(after(state, mover, command), mover)
        if best is None or points > best:
            best, choice = points, [command]
        elif points == best:
            choice.append(command)
    return rng.choice(choice)


def greedy(state: GameState, mover: int, commands: list, rng) -> dict:
    """The best score right after the move, were the round shared out then; a Shanghai
    whenever sharing out now gains points."""
    if state.phase == TURN:
        if SHANGHAI in commands and (
            ROLL not in commands or round_end_lead(state, mover) > holding_lead(state, mover)
        ):
            return SHANGHAI
        return ROLL
    return _best_by(round_end_lead, state, mover, commands, rng)


def judged(state: GameState, mover: int, commands: list, rng) -> dict:
    """The best position by the bots' judgement (``evaluation.value``) right after the
    move; a Shanghai when the shared-out position is judged better than the one held."""
    if state.phase == TURN:
        return _shanghai_or_roll(state, mover, commands, given=0.0)
    return _best_by(value, state, mover, commands, rng)


def judged_start(state: GameState, mover: int, commands: list, rng) -> dict:
    """``judged``, except that a Shanghai also counts what it hands over: the opponent
    begins the next round (``evaluation.start_worth``). The admiral's playouts use it;
    as a player of its own it wins about 62% against ``judged`` (``docs/bots.md``)."""
    return judged_with(SHARP, state, mover, commands, rng)


def keen(state: GameState, mover: int, commands: list, rng) -> dict:
    """``judged_start`` by the admiral's judgement (``evaluation.KEEN``), which values
    trick cards more and the tavern's cards still to be fought for less. The admiral's
    playouts use it; as a player of its own it wins about 65% against ``judged_start``
    (``docs/bots.md``)."""
    return judged_with(KEEN, state, mover, commands, rng)


def judged_with(judgement, state: GameState, mover: int, commands: list, rng) -> dict:
    """``judged_start``'s rule by another ``judgement`` (an ``evaluation.Judgement``):
    the best position by it right after the move; a Shanghai when the shared-out
    position, less the next round's start, is judged better than the one held."""
    if state.phase == TURN:
        given = start_worth(state.round + 1)
        return _shanghai_or_roll(state, mover, commands, given=given, judgement=judgement)
    return _best_by(lambda later, seat: value(later, seat, judgement), state, mover, commands, rng)


def _shanghai_or_roll(
    state: GameState, mover: int, commands: list, given: float, judgement=SHARP
) -> dict:
    """A Shanghai when it is the only way, or when the shared-out position, less
    ``given`` points of lead, is judged (by ``judgement``) better than the one held; else
    a roll."""
    if SHANGHAI in commands and (
        ROLL not in commands
        or value(after(state, mover, SHANGHAI), mover, judgement, -given)
        > value(state, mover, judgement)
    ):
        return SHANGHAI
    return ROLL
