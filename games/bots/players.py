"""The bots' decisions: looking ahead through the engine, one command at a time."""

from __future__ import annotations

from games.rules.engine import Command, decide, evolve, legal_commands
from games.rules.state import DIRECTION, PLACEMENT, GameState

from .evaluation import SHARP, Judgement, value

GIVING_UP = ("resign",)  # the only way out of a dealt game; no bot weighs it

# The 21 different throws of two dice, each with its chance out of 36.
THROWS = tuple(((a, b), (1 if a == b else 2) / 36) for a in range(1, 7) for b in range(a, 7))


class Loaded:
    """An rng for ``decide`` that throws the dice it is given."""

    def __init__(self, dice):
        self.values = list(dice)

    def randint(self, low, high):
        return self.values.pop(0)


def playable(state: GameState, seat: int) -> list[Command]:
    return [c for c in legal_commands(state, seat) if c["type"] not in GIVING_UP]


def after(state: GameState, seat: int, command: Command, dice=None) -> GameState:
    """The state once ``seat`` played ``command`` (a roll throws ``dice``)."""
    for event in decide(state, seat, command, Loaded(dice or ())):
        state = evolve(state, event)
    return state


class Lookahead:
    """Values commands by what they lead to: the chance to win (``evaluation.value``)
    after the command, averaged over the dice it throws, and, where the same player
    still has to choose (a direction, a die after a trick), after their best choice.

    With ``dice=False`` it does not look through the throws of a roll: rolling is worth
    what the position held is worth (the judgement counts the dice still to come in
    it), so a Shanghai is called when the shared-out position is judged better. That is
    the heuristic levels' way; the captain's search looks through every throw."""

    def __init__(self, seat: int, judgement: Judgement = SHARP, dice: bool = True):
        self.seat = seat
        self.judgement = judgement
        self.dice = dice

    def leaf(self, state: GameState) -> float:
        return value(state, self.seat, self.judgement)

    def best(self, state: GameState) -> float:
        """My value when I am still to choose in ``state`` (or the leaf value if not)."""
        if state.turn != self.seat or state.phase not in (DIRECTION, PLACEMENT):
            return self.leaf(state)
        return max(self.command_value(state, c) for c in playable(state, self.seat))

    def command_value(self, state: GameState, command: Command) -> float:
        kind = command["type"]
        if kind == "roll" and not self.dice:
            return self.leaf(state)
        if kind == "roll" or (kind == "trick" and command["half"] == "reroll"):
            total = 0.0
            for dice, chance in THROWS:
                total += chance * self.best(after(state, self.seat, command, dice))
            return total
        nxt = after(state, self.seat, command)
        if kind == "place" or kind == "shanghai":
            return self.leaf(nxt)
        return self.best(nxt)  # a direction, or a trick before the placement

    def ranked(self, state: GameState) -> list[tuple[float, Command]]:
        """Every playable command with its value, best first (ties in the engine's order)."""
        return self.ranked_among(state, playable(state, self.seat))

    def ranked_among(self, state: GameState, commands: list[Command]):
        scored = [(self.command_value(state, c), i, c) for i, c in enumerate(commands)]
        scored.sort(key=lambda item: (-item[0], item[1]))
        return [(v, c) for v, _, c in scored]
