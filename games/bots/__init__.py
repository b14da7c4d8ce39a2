"""Computer opponents for Shanghaien: pure Python beside the rules engine (no Django,
no I/O, no global state).

Public API
----------
``choose(state, seat, level, rng, *, playouts=None, deadline=None) -> command``
    The command the bot of ``level`` plays for ``seat`` in ``state``: one of
    ``games.rules.legal_commands(state, seat)`` (never a resignation; an abort is never legal), the
    same dict. ``seat`` must be on turn. ``rng`` is any object with ``random()``,
    ``shuffle(list)`` and ``choice(seq)``, such as ``random.Random``; the same state,
    level and rng state give the same command. A bot knows what its seat's player
    knows (``unseen``): the deck's order is thrown away before it looks (which cards
    are still to come is public; their order is not), and the dice still to come are
    in no state. ``playouts`` sets the admiral's work (``admiral.PLAYOUTS`` unless
    told); ``deadline`` (a ``time.monotonic()`` moment) cuts its search short.
``LEVELS``
    ``("deckhand", "boatswain", "captain", "admiral")``, weakest first:

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
    - **admiral**: searches wider and longer (``admiral.py``) and judges better: the
      look-ahead's best eight commands, the playouts spent by successive halving on
      those still in the running, played out by a policy that counts what a Shanghai
      hands over (the next round's start) and judges by a keener judgement
      (``evaluation.KEEN``: trick cards worth more, the tavern's cards still to be
      fought for less), each playout's end judged by a chance to win fitted to how
      games end (``evaluation.calibrated_value``, which knows what beginning a round
      is worth).
``unseen(state, rng) -> state``
    What every level looks at: ``games.rules.as_known`` (the deck in the catalogue's
    order) with a guess of the order drawn by ``rng``.
``candidates(state, seat) -> list``
    The commands the captain weighs in ``state`` (its best guesses, best first).
``BASELINES``
    ``("random", "greedy")``, for measuring the levels (``bench/bot_strength.py``): a uniformly
    random player, and one that takes the best score it would have if the round ended
    right after its move.
"""

from __future__ import annotations

from dataclasses import replace

from games.rules import as_known
from games.rules.state import PLACEMENT, GameState

from . import admiral
from .evaluation import SHARP, Judgement
from .players import Lookahead, playable
from .policies import greedy
from .search import best_by_playouts
from .search import candidates as candidates

LEVELS = ("deckhand", "boatswain", "captain", "admiral")
BASELINES = ("random", "greedy")

BLUNT = Judgement(neighbours=False, swing=1.6, option=0.0, foresight=False)
DECKHAND_SLIPS = 0.15  # how often the deckhand plays a move that is not its best


def choose(
    state: GameState, seat: int, level: str, rng, *, playouts: int | None = None, deadline=None
) -> dict:
    if state.turn != seat:
        raise ValueError("the bot's seat is not on turn")
    if level not in LEVELS + BASELINES:
        raise ValueError(f"no bot level {level!r}")
    state = unseen(state, rng)
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
        return admiral.choose(state, seat, rng, playouts, deadline)
    return Lookahead(seat, SHARP, dice=False).ranked(state)[0][1]


def unseen(state: GameState, rng) -> GameState:
    """``state`` with the deck's order thrown away (``games.rules.as_known``) and a guess
    of it drawn by ``rng``: all a bot may look at."""
    state = as_known(state)
    return replace(state, deck=tuple(rng.sample(sorted(state.deck), len(state.deck))))


def _deckhand(state: GameState, seat: int, commands: list, rng) -> dict:
    if state.phase == PLACEMENT:
        plain = [c for c in commands if c["type"] != "trick"]
        if rng.random() > 0.2:
            commands = plain  # a trick card, now and then
    ranked = Lookahead(seat, BLUNT, dice=False).ranked_among(state, commands)
    if len(ranked) > 1 and rng.random() < DECKHAND_SLIPS:
        return ranked[1][1]
    return ranked[0][1]
