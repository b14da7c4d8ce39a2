"""Computer opponents for Shanghaien: pure Python beside the rules engine (no Django,
no I/O, no global state).

Public API
----------
``choose(state, seat, level, rng) -> command``
    The command the bot of ``level`` plays for ``seat`` in ``state``: one of
    ``games.rules.legal_commands(state, seat)`` (never a resignation; an abort is never legal), the
    same dict. ``seat`` must be on turn. ``rng`` is any object with ``random()``,
    ``shuffle(list)`` and ``choice(seq)``, such as ``random.Random``; the same state,
    level and rng state give the same command. A bot knows what its seat's player
    knows: the deck's order in ``state`` is shuffled away before it looks (which cards
    are still to come is public; their order is not).
``LEVELS``
    ``("deckhand", "boatswain", "captain")``, weakest first:

    - **deckhand**: plays sensibly but like a beginner: one move deep, it does not see
      neighbour sums or the cards still to come, sometimes picks a worse move, and uses
      trick cards only now and then.
    - **boatswain**: good heuristics, one move deep: each command judged by the chance
      to win of the position it leads to (dice majorities and neighbour sums on each
      card, what each card is worth to either crew given the nation's cards still to
      come, unused tricks, the dice still to come); a Shanghai when the shared-out
      position is judged better than the one held.
    - **captain**: searches: the best few commands of a look-ahead through every throw
      of the dice, each played out to the end of the round many times over shuffles
      of the unknown deck and throws of the dice (determinized Monte-Carlo,
      ``search.py``), judged by the boatswain's evaluation where each playout ends.
``weigh(state, seat, commands, rng) -> list[float]``
    The captain's estimate of ``seat``'s chance to win after each of ``commands``
    (legal commands of ``seat``, on turn), the deck's order unseen as in ``choose``;
    deterministic for a given rng state. The analysis of a finished game asks it.
``candidates(state, seat) -> list``
    The commands the captain weighs in ``state`` (its best guesses, best first).
``BASELINES``
    ``("random", "greedy")``, for measuring the levels (``bench/bot_strength.py``): a uniformly
    random player, and one that takes the best score it would have if the round ended
    right after its move.
"""

from __future__ import annotations

from dataclasses import replace

from games.rules.state import PLACEMENT, GameState

from .evaluation import SHARP, Judgement
from .players import Lookahead, playable
from .policies import greedy
from .search import best_by_playouts, estimates
from .search import candidates as candidates
from . import admiral

LEVELS = ("deckhand", "boatswain", "captain", "admiral")
BASELINES = ("random", "greedy")

BLUNT = Judgement(neighbours=False, swing=1.6, option=0.0, foresight=False)
DECKHAND_SLIPS = 0.15  # how often the deckhand plays a move that is not its best


def choose(state: GameState, seat: int, level: str, rng, *, iterations=None, deadline=None) -> dict:
    if state.turn != seat:
        raise ValueError("the bot's seat is not on turn")
    if level not in LEVELS + BASELINES:
        raise ValueError(f"no bot level {level!r}")
    state = replace(state, deck=tuple(rng.sample(sorted(state.deck), len(state.deck))))
    commands = playable(state, seat)
    if len(commands) == 1:
        return commands[0]
    if level == "random":
        return rng.choice(commands)
    if level == "greedy":
        return greedy(state, seat, commands, rng)
    if level == "deckhand":
        return _deckhand(state, seat, commands, rng)
    if level == "captain":
        return best_by_playouts(state, seat, rng)
    if level == "admiral":
        return admiral.choose(state, seat, rng, iterations, deadline)
    return Lookahead(seat, SHARP, dice=False).ranked(state)[0][1]


def weigh(state: GameState, seat: int, commands: list, rng) -> list[float]:
    if state.turn != seat:
        raise ValueError("the seat is not on turn")
    state = replace(state, deck=tuple(rng.sample(sorted(state.deck), len(state.deck))))
    return estimates(state, seat, commands, rng)


def _deckhand(state: GameState, seat: int, commands: list, rng) -> dict:
    if state.phase == PLACEMENT:
        plain = [c for c in commands if c["type"] != "trick"]
        if rng.random() > 0.2:
            commands = plain  # a trick card, now and then
    ranked = Lookahead(seat, BLUNT, dice=False).ranked_among(state, commands)
    if len(ranked) > 1 and rng.random() < DECKHAND_SLIPS:
        return ranked[1][1]
    return ranked[0][1]
