"""The captain's search: determinized Monte-Carlo over the rest of the round.

For each of the boatswain's best few commands it plays the round to its end many
times, each time with the unknown deck shuffled anew and the dice thrown anew, both
players then moving greedily (the best score were the round shared out right after
the move); it judges where each playout ends with ``evaluation.value`` and keeps the
command with the best average. Every command meets the same shuffles and throws
(common random numbers), so the comparison is between the commands, not their luck.
"""

from __future__ import annotations

import random
from dataclasses import replace

from games.rules.engine import Command, decide, evolve
from games.rules.state import GameState

from .evaluation import value
from .players import Lookahead, playable

CANDIDATES = 4  # the boatswain's best this many commands are played out
PLAYOUTS = 24  # playouts per command


def playout(state: GameState, seat: int, rng: random.Random, greedy) -> float:
    """Both players greedy until the round (or the game) is over; ``seat``'s value then."""
    round_no = state.round
    while not state.finished and state.round == round_no:
        mover = state.turn
        commands = playable(state, mover)
        command = commands[0] if len(commands) == 1 else greedy(state, mover, commands, rng)
        for event in decide(state, mover, command, rng):
            state = evolve(state, event)
    return value(state, seat)


def estimates(state: GameState, seat: int, commands: list[Command], rng, greedy) -> list[float]:
    """The captain's estimate of ``seat``'s chance to win after each of ``commands``:
    the average of ``PLAYOUTS`` playouts, every command meeting the same shuffles of
    the unknown deck and the same dice. Deterministic for a given ``rng`` state."""
    seeds = [rng.random() for _ in range(PLAYOUTS)]
    deck = sorted(state.deck)
    totals = [0.0] * len(commands)
    for seed in seeds:
        world = random.Random(seed)
        shuffled = replace(state, deck=tuple(world.sample(deck, len(deck))))
        for i, command in enumerate(commands):
            throws = random.Random(seed)  # the same dice for every command
            nxt = shuffled
            for event in decide(shuffled, seat, command, throws):
                nxt = evolve(nxt, event)
            totals[i] += playout(nxt, seat, throws, greedy)
    return [total / PLAYOUTS for total in totals]


def candidates(state: GameState, seat: int) -> list[Command]:
    """The commands the captain weighs: the boatswain's best ``CANDIDATES``."""
    return [command for _, command in Lookahead(seat).ranked(state)[:CANDIDATES]]


def best_by_playouts(state: GameState, seat: int, rng, greedy) -> Command:
    weighed = candidates(state, seat)
    if len(weighed) == 1:
        return weighed[0]
    chances = estimates(state, seat, weighed, rng, greedy)
    best = max(range(len(weighed)), key=lambda i: (chances[i], -i))
    return weighed[best]
