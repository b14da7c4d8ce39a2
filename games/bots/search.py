"""The captain's search: determinized Monte-Carlo over the rest of the round.

Its candidates are the best few commands of a look-ahead through every throw of the
dice (``players.Lookahead``). It plays the round to its end many times after each,
every time with the unknown deck shuffled anew and the dice thrown anew: the captain's
side by the bots' judgement one move deep (``policies.judged``), the opponent in turn
as such a player and as a greedy one (``policies.greedy``), since the captain does
not know which kind it faces. It judges where each playout ends with
``evaluation.value`` and keeps the command with the best average. Every command meets
the same shuffles, throws and opponents (common random numbers), so the comparison is
between the commands, not their luck.
"""

from __future__ import annotations

import random
from dataclasses import replace

from games.rules.engine import Command, decide, evolve
from games.rules.state import GameState

from .evaluation import value
from .players import Lookahead, playable
from .policies import greedy, judged

CANDIDATES = 4  # the boatswain's best this many commands are played out
PLAYOUTS = 24  # playouts per command
# The opponent in the playouts, by turns: one that weighs positions as the captain does,
# and one that takes points as soon as the round can be shared out with a gain.
OPPONENTS = (judged, greedy)


def playout(
    state: GameState, seat: int, rng: random.Random, other, judge=value, policy=judged
) -> float:
    """Play the round to its end (or the game's), ``seat`` by ``policy``
    (``policies.judged`` unless told) and its opponent by ``other``; ``seat``'s chance to
    win then, by ``judge`` (``evaluation.value`` unless told)."""
    round_no = state.round
    while not state.finished and state.round == round_no:
        mover = state.turn
        commands = playable(state, mover)
        if len(commands) == 1:
            command = commands[0]
        else:
            command = (policy if mover == seat else other)(state, mover, commands, rng)
        for event in decide(state, mover, command, rng):
            state = evolve(state, event)
    return judge(state, seat)


class Weighing:
    """The playouts of one decision: each command's results, the k-th of every command
    from the same shuffle of the unknown deck, the same dice and the same opponent
    (``opponents``, in turn), ``seat`` playing by ``policy``, judged where each ends by
    ``judge``."""

    def __init__(
        self,
        state: GameState,
        seat: int,
        commands: list[Command],
        rng,
        judge=value,
        policy=judged,
        opponents=OPPONENTS,
    ):
        self.state, self.seat, self.commands = state, seat, commands
        self.rng, self.judge, self.policy, self.opponents = rng, judge, policy, opponents
        self.deck = sorted(state.deck)
        self.seeds: list[float] = []
        self.results: list[list[float]] = [[] for _ in commands]

    def _seed(self, k: int) -> float:
        while len(self.seeds) <= k:
            self.seeds.append(self.rng.random())
        return self.seeds[k]

    def play(self, index: int, count: int) -> None:
        """``count`` more playouts of command ``index``."""
        results = self.results[index]
        command = self.commands[index]
        for k in range(len(results), len(results) + count):
            seed = self._seed(k)
            world = random.Random(seed)
            shuffled = replace(self.state, deck=tuple(world.sample(self.deck, len(self.deck))))
            throws = random.Random(seed)  # the same dice for every command
            nxt = shuffled
            for event in decide(shuffled, self.seat, command, throws):
                nxt = evolve(nxt, event)
            other = self.opponents[k % len(self.opponents)]
            results.append(playout(nxt, self.seat, throws, other, self.judge, self.policy))

    def mean(self, index: int) -> float:
        results = self.results[index]
        return sum(results) / len(results) if results else 0.0


def estimates(state: GameState, seat: int, commands: list[Command], rng) -> list[float]:
    """The captain's estimate of ``seat``'s chance to win after each of ``commands``:
    the average of ``PLAYOUTS`` playouts, every command meeting the same shuffles of
    the unknown deck and the same dice, and the same opponent (``OPPONENTS``, in turn).
    Deterministic for a given ``rng`` state."""
    weighing = Weighing(state, seat, commands, rng)
    for index in range(len(commands)):
        weighing.play(index, PLAYOUTS)
    return [weighing.mean(index) for index in range(len(commands))]


def candidates(state: GameState, seat: int) -> list[Command]:
    """The commands the captain weighs: the boatswain's best ``CANDIDATES``."""
    return [command for _, command in Lookahead(seat).ranked(state)[:CANDIDATES]]


def best_by_playouts(state: GameState, seat: int, rng) -> Command:
    weighed = candidates(state, seat)
    if len(weighed) == 1:
        return weighed[0]
    chances = estimates(state, seat, weighed, rng)
    best = max(range(len(weighed)), key=lambda i: (chances[i], -i))
    return weighed[best]
