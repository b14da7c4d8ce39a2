"""The admiral's search: every sensible command played out to the end of the round,
the budget spent where it decides something (successive halving).

Its candidates are the best ``CANDIDATES`` commands of the look-ahead through every
throw of the dice (``players.Lookahead``, by the admiral's judgement ``evaluation.KEEN``),
commands with the same outcome counted once.
The playouts go in passes: each pass plays every command still in the running the same
number of times, over the same shuffles of the unknown deck, the same dice and the same
opponents (common random numbers), and keeps the better half by their average so far,
until one is left or the budget is spent. Each playout (``search.playout``) plays the
round to its end, the admiral's side one move deep by its judgement, counting what a
Shanghai hands over, the next round's start (``policies.keen``), the opponent by turns
as such a player and as a greedy one; it is judged where it ends by
``evaluation.calibrated_value``, the chance to win fitted to how games end.
"""

from __future__ import annotations

import math
import time

from games.rules.cards import CARDS
from games.rules.engine import Command
from games.rules.state import GameState

from .evaluation import KEEN, calibrated_value
from .players import Lookahead
from .policies import greedy, keen
from .search import Weighing

CANDIDATES = 8
PLAYOUTS = 256  # playouts per decision, over all its commands
# In the playouts the admiral's side plays by ``policies.keen``; the opponent in turn by
# it and by the greedy policy.
POLICY = keen
OPPONENTS = (keen, greedy)


def candidates(state: GameState, seat: int, count: int = CANDIDATES) -> list[Command]:
    """The look-ahead's best ``count`` commands, those with the same outcome once."""
    chosen, seen = [], set()
    for worth, command in Lookahead(seat, KEEN).ranked(state):
        key = _outcome(state, command, worth)
        if key in seen:
            continue
        seen.add(key)
        chosen.append(command)
        if len(chosen) == count:
            break
    return chosen


def _outcome(state: GameState, command: Command, worth: float):
    """What tells two commands with the same effect apart: placing either of two equal
    dice, or using either of two trick cards of the same kind, is one choice."""
    if command["type"] == "place":
        return ("place", state.roll[command["die"]])
    if command["type"] == "trick":
        return (
            "trick",
            CARDS[command["card"]].action,
            command["half"],
            command.get("nation"),
            command.get("die"),
            command.get("delta"),
            worth,
        )
    return (command["type"], command.get("one_at"))


def weigh(state, seat, commands, rng, playouts=None, deadline=None) -> Weighing:
    """Successive halving over ``commands`` with about ``playouts`` playouts in all."""
    playouts = playouts or PLAYOUTS
    weighing = Weighing(state, seat, commands, rng, calibrated_value, POLICY, OPPONENTS)
    alive = list(range(len(commands)))
    passes = max(1, math.ceil(math.log2(len(commands))))
    for _ in range(passes):
        each = max(1, playouts // (passes * len(alive)))
        for index in alive:
            weighing.play(index, each)
        if len(alive) > 1:
            alive.sort(key=lambda i: (-weighing.mean(i), i))
            alive = alive[: max(1, math.ceil(len(alive) / 2))]
        if deadline is not None and time.monotonic() > deadline:
            break
    return weighing


def choose(state: GameState, seat: int, rng, playouts: int | None = None, deadline=None) -> Command:
    commands = candidates(state, seat)
    if len(commands) == 1:
        return commands[0]
    weighing = weigh(state, seat, commands, rng, playouts, deadline)
    best = max(
        range(len(commands)),
        key=lambda i: (len(weighing.results[i]), weighing.mean(i), -i),
    )
    return commands[best]
