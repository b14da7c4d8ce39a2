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


def best_by_playouts(state: GameState, seat: int, rng, greedy) -> Command:
    ranked = Lookahead(seat).ranked(state)
    candidates = [command for _, command in ranked[:CANDIDATES]]
    if len(candidates) == 1:
        return candidates[0]
    seeds = [rng.random() for _ in range(PLAYOUTS)]
    deck = sorted(state.deck)
    totals = [0.0] * len(candidates)
    for seed in seeds:
        world = random.Random(seed)
        shuffled = replace(state, deck=tuple(world.sample(deck, len(deck))))
        for i, command in enumerate(candidates):
            throws = random.Random(seed)  # the same dice for every command
            nxt = shuffled
            for event in decide(shuffled, seat, command, throws):
                nxt = evolve(nxt, event)
            totals[i] += playout(nxt, seat, throws, greedy)
    best = max(range(len(candidates)), key=lambda i: (totals[i], -i))
    return candidates[best]
