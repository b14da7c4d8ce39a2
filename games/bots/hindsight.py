"""The admiral's look back at a finished game: each player's chance to win before and
after each of their decisions, what the admiral would have played instead, and how
sure that is.

``decisions(events)`` reads a game's event log (the engine's events, in order) into the
players' decisions: the state each was taken in, the seat, and the command played
(told from its events as ``games.rules.records`` does). ``analyse(decisions, key,
start, stop)`` then weighs decisions ``start`` to ``stop`` as the admiral would
(``admiral.candidates`` and the command played, successive halving in one
``admiral.weigh``); then its choice and the command played are both played out at
least ``PAIRED`` times over the same shuffles, dice and opponents. ``before`` is the
estimate for the admiral's choice (the mover's chance when choosing), ``after`` the
estimate for the command played, ``loss`` the difference (never below 0), ``margin``
the half-width of the loss's 95% interval from the paired playouts, and ``best`` the
admiral's choice (the command played where it did as well). A decision with one
playable command only is skipped: there was nothing to choose.

Each decision gets its own ``random.Random``, seeded from ``key`` (the game's id) and
the decision's index, so a game analysed in chunks gives what it gives in one go, and
again the same on any machine. The deck's order is thrown away first
(``games.rules.as_known``) and guessed anew, as ``choose`` does: the estimate knows
what the mover knew.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace

from games.rules import as_known
from games.rules.engine import Command, Event, decide, evolve
from games.rules.state import GameState

from . import admiral
from .players import playable

# The event that opens each command a player chooses (its other events follow it).
OPENING = ("rolled", "direction_chosen", "placed", "trick_played", "shanghai_called")
DIGITS = 4  # estimates are stored rounded to this many decimals
ENGINE = "admiral"  # the level whose judgement the analysis gives
PAIRED = 96  # the command played and the best are each played out at least this often
Z95 = 1.96  # a 95% interval is this many standard errors either side


@dataclass(frozen=True)
class Decision:
    index: int  # its place among the game's decisions, from 0
    step: int  # the seq of its first event (the replay's step)
    state: GameState  # the game as it stood when the mover chose
    seat: int
    command: Command


class _Dice:
    """Throws the dice the log recorded."""

    def __init__(self, values):
        self.values = list(values)

    def randint(self, low, high):
        return self.values.pop(0) if self.values else low


def _command(state: GameState, events: list[Event], index: int) -> tuple[Command, list[int]]:
    """The command behind the event ``events[index]`` and the dice it threw."""
    event = events[index]
    kind = event["type"]
    if kind == "rolled":
        return {"type": "roll"}, event["dice"]
    if kind == "direction_chosen":
        return {"type": "direction", "one_at": event["one_at"]}, []
    if kind == "placed":
        if state.roll is None or event["values"][0] not in state.roll:
            raise ValueError(f"event {index + 1} places a die that was not rolled")
        return {"type": "place", "die": state.roll.index(event["values"][0])}, []
    if kind == "trick_played":
        command = {"type": "trick", "card": event["card"], "half": event["half"]}
        command.update({k: event[k] for k in ("nation", "die", "delta") if k in event})
        follows = events[index + 1] if index + 1 < len(events) else {}
        dice = follows.get("dice", []) if event["half"] == "reroll" else []
        return command, dice
    return {"type": "shanghai"}, []


def decisions(events: list[Event]) -> list[Decision]:
    """Every command a player chose in the game, with the state it was chosen in.

    Resigning and aborting are left out (no bot weighs them), and so are the server's
    endings. A log the engine does not accept raises ``ValueError`` or ``IllegalCommand``.
    """
    found: list[Decision] = []
    state: GameState | None = None
    follow = 0  # events still to come of the command being folded
    for index, event in enumerate(events):
        if follow:
            follow -= 1
        elif state is not None and event["type"] in OPENING:
            seat = event["seat"]
            command, dice = _command(state, events, index)
            made = decide(state, seat, command, _Dice(dice))
            follow = len(made) - 1
            found.append(Decision(len(found), index + 1, state, seat, command))
        state = evolve(state, event)
    return found


def analyse_decision(decision: Decision, key) -> dict | None:
    """The admiral's judgement of one decision; None if there was nothing to choose."""
    state, seat, played = decision.state, decision.seat, decision.command
    if len(playable(state, seat)) < 2:
        return None
    rng = random.Random(f"{key}:{decision.index}")
    known = as_known(state)
    seen = replace(known, deck=tuple(rng.sample(sorted(known.deck), len(known.deck))))
    weighed = admiral.candidates(seen, seat)
    if played not in weighed:
        weighed.append(played)
    weighing = admiral.weigh(seen, seat, weighed, rng)
    mine = weighed.index(played)
    # the admiral's choice: the command it played out most, then the best average
    best = max(
        range(len(weighed)),
        key=lambda i: (len(weighing.results[i]), weighing.mean(i), i == mine, -i),
    )
    for index in {best, mine}:  # both played out often enough to be compared
        weighing.play(index, PAIRED - len(weighing.results[index]))
    chances = [round(weighing.mean(i), DIGITS) for i in range(len(weighed))]
    if chances[mine] >= chances[best]:
        best = mine
    return {
        "index": decision.index,
        "step": decision.step,
        "round": state.round,
        "seat": seat,
        "roll": list(state.roll) if state.roll else None,
        "played": played,
        "best": weighed[best],
        "before": chances[best],
        "after": chances[mine],
        "loss": round(chances[best] - chances[mine], DIGITS),
        "margin": round(margin(weighing.results[best], weighing.results[mine]), DIGITS),
    }


def margin(best: list[float], played: list[float]) -> float:
    """The half-width of the 95% interval of ``mean(best) - mean(played)``, from paired
    results (the k-th of each met the same deck, dice and opponent); 0 for one list."""
    if best is played:
        return 0.0
    differences = [b - p for b, p in zip(best, played, strict=False)]  # the pairs both have
    n = len(differences)
    if n < 2:
        return 1.0
    mean = sum(differences) / n
    variance = sum((d - mean) ** 2 for d in differences) / (n - 1)
    return Z95 * (variance / n) ** 0.5


def analyse(found: list[Decision], key, start: int = 0, stop: int | None = None) -> list[dict]:
    """``analyse_decision`` for ``found[start:stop]``, leaving out those with no choice."""
    results = (analyse_decision(d, key) for d in found[start:stop])
    return [r for r in results if r is not None]
