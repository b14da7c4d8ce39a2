"""An independent Monte-Carlo player, the bench's yardstick beside the bots' levels.

    choose(state, seat, rng, playouts=PLAYOUTS) -> command

It shares nothing with ``games.bots``: it sees the game through the rules engine's
public API alone and judges positions its own way, so that the ladder in
``bench/bot_strength.py`` holds a player whose judgement is not the bots' own.

How it plays: the deck's order is shuffled away first (its composition is public, its
order is not). Each legal command (resigning aside; commands that do the same thing,
such as two trick cards with the same action, count once) is tried in playouts to the
end of the round: fresh dice each time, both sides then played by a quick rule of
thumb (below) on a copy of the round held in plain lists. A playout ends with the
round's real share-out (majorities, then neighbour sums), and is worth the score
margin the crews would then give under the game's real scoring
(``games.rules.scoring.nation_points``, one point per unused trick card); in the last
round it is worth a win, a draw or a loss instead. The playouts go to the commands by
successive halving: each pass shares its part of the budget evenly among the commands
still in the running, with the same dice for every command (common random numbers),
and keeps the better half.

The rule of thumb in the playouts: every card has a worth to each side, the change of
that side's score margin if it took the card given the crews as they stand; a die goes
where it most raises the chance of taking a card times the card's worth to both sides
(taking it from the opponent counts as well); "Add both dice" and "Die ±1" are played
when they beat the best plain placement by a margin; a round is ended as soon as
sharing out now gains, once a side's supply runs low or by chance before.

The budget is counted in playouts, not time, so a decision depends only on the state
and the rng's state; ``PLAYOUTS`` takes about 20 ms of CPU on the bench's machine.
"""

from __future__ import annotations

import dataclasses
import random

from games.rules import CARDS, NATIONS, GameState, legal_commands
from games.rules.scoring import nation_points

PLAYOUTS = 1200
# The rule of thumb's slips (a die placed at random) and its chance to end a round that
# pays while both sides still have dice: both measured against the greedy player (a
# rule of thumb that always ends such a round made a weaker searcher, 58% against 68%).
SLIP = 0.1
CALL = 0.5

_NATION_INDEX = {nation: i for i, nation in enumerate(NATIONS)}
# Chance of taking a card by the dice difference on it (mine minus theirs), as the
# rule of thumb reckons it while dice are still to come.
_TAKE = {-2: 0.03, -1: 0.15, 0: 0.5, 1: 0.85, 2: 0.97}
# What an unused trick card is worth in the rule of thumb: its point plus a use later.
_TRICK_WORTH = 1.5


def _take(mine: int, theirs: int) -> float:
    if mine == 0:
        return 0.0
    if theirs == 0:
        return 1.0 if mine >= 2 else 0.9
    d = mine - theirs
    return _TAKE[max(-2, min(2, d))]


class _Round:
    """The round under way in plain lists: what a playout needs, nothing more."""

    __slots__ = (
        "cards",
        "dice",
        "direction",
        "held",
        "last",
        "phase",
        "roll",
        "seat",
        "supply",
        "tricks",
        "turn",
        "used",
        "worth",
    )

    def copy(self) -> _Round:
        other = _Round.__new__(_Round)
        other.cards = self.cards
        other.dice = [self.dice[0][:], self.dice[1][:]]
        other.direction = self.direction
        other.held = [self.held[0][:], self.held[1][:]]
        other.last = self.last
        other.phase = self.phase
        other.roll = self.roll
        other.seat = self.seat
        other.supply = self.supply[:]
        other.tricks = [self.tricks[0][:], self.tricks[1][:]]
        other.turn = self.turn
        other.used = self.used[:]
        other.worth = self.worth
        return other


def _from_state(state: GameState, seat: int) -> _Round:
    r = _Round.__new__(_Round)
    # A card as (nation index, value) for a sailor, (-1, 0) for a trick card.
    r.cards = tuple(
        (_NATION_INDEX[CARDS[c].nation], CARDS[c].value) if CARDS[c].kind == "sailor" else (-1, 0)
        for c in state.tavern
    )
    r.dice = [list(p.dice) for p in state.players]
    r.direction = state.direction  # None, "left" or "right"
    # Per side: crew strength per nation, then the unused trick cards' count at the end.
    r.held = []
    for p in state.players:
        strengths = p.strengths()
        r.held.append([strengths[n] for n in NATIONS] + [len(p.tricks)])
    r.last = state.round == 8
    r.phase = state.phase
    r.roll = state.roll
    r.seat = seat
    r.supply = [p.supply for p in state.players]
    r.tricks = [[CARDS[c].action for c in p.tricks] for p in state.players]
    r.turn = state.turn
    r.used = [p.trick_used for p in state.players]
    r.worth = (_worths(r.held, 0, r.cards), _worths(r.held, 1, r.cards))
    return r


def _margin(held: list[list[int]], side: int) -> int:
    mine, theirs = held[side], held[1 - side]
    total = mine[8] - theirs[8]
    for n in range(8):
        total += nation_points(mine[n], theirs[n]) - nation_points(theirs[n], mine[n])
    return total


def _worths(held: list[list[int]], side: int, cards) -> tuple[float, ...]:
    """What each tavern card is worth to ``side``: the change of its margin if it took it."""
    mine, theirs = held[side], held[1 - side]
    out = []
    for nation, value in cards:
        if nation < 0:
            out.append(_TRICK_WORTH)
            continue
        m, t = mine[nation], theirs[nation]
        before = nation_points(m, t) - nation_points(t, m)
        after = nation_points(m + value, t) - nation_points(t, m + value)
        out.append(float(after - before))
    return tuple(out)


def _index(direction: str, value: int) -> int:
    return value - 1 if direction == "left" else 6 - value


def _place_gain(r: _Round, side: int, index: int) -> float:
    """How much one more die of ``side`` on slot ``index`` is worth to it, by the rule of thumb."""
    mine, theirs = r.dice[side][index], r.dice[1 - side][index]
    before = _take(mine, theirs)
    after = _take(mine + 1, theirs)
    lost_before = _take(theirs, mine)
    lost_after = _take(theirs, mine + 1)
    return (after - before) * r.worth[side][index] + (lost_before - lost_after) * r.worth[1 - side][
        index
    ]


def _best_die(r: _Round, side: int, roll) -> tuple[float, int]:
    gains = [_place_gain(r, side, _index(r.direction, v)) for v in roll]
    return (gains[0], 0) if gains[0] >= gains[1] else (gains[1], 1)


def _place(r: _Round, side: int, values) -> None:
    dice = r.dice[side]
    for v in values:
        dice[_index(r.direction, v)] += 1
    r.supply[side] -= len(values)
    r.roll = None
    r.turn = 1 - side
    r.phase = "turn"


def _share_out(r: _Round, called_by: int) -> float:
    """The round shared out: what the playout is worth to the searching side."""
    held = [r.held[0][:], r.held[1][:]]
    d0, d1 = r.dice
    left = r.direction == "left"
    for i, (nation, value) in enumerate(r.cards):
        a, b = d0[i], d1[i]
        if a == b:
            if a == 0:
                continue
            pips = [0, 0]
            for j in (i - 1, i + 1):
                if 0 <= j < 6:
                    number = j + 1 if left else 6 - j
                    pips[0] += d0[j] * number
                    pips[1] += d1[j] * number
            if pips[0] == pips[1]:
                continue
            to = 0 if pips[0] > pips[1] else 1
        else:
            to = 0 if a > b else 1
        if nation < 0:
            held[to][8] += 1
        else:
            held[to][nation] += value
    margin = _margin(held, r.seat)
    if r.last:
        return (margin > 0) - (margin < 0) + 0.01 * margin
    return float(margin)


def _now_gain(r: _Round, side: int) -> float:
    """What sharing out now would give ``side`` by the cards' worths (majorities, ties half)."""
    total = 0.0
    mine, theirs = r.dice[side], r.dice[1 - side]
    w_me, w_them = r.worth[side], r.worth[1 - side]
    for i in range(6):
        a, b = mine[i], theirs[i]
        if a > b:
            total += w_me[i]
        elif b > a:
            total -= w_them[i]
        elif a:
            total += 0.5 * (w_me[i] - w_them[i])
    return total


def _policy_placement(r: _Round, side: int, rng: random.Random) -> None:
    """The rule of thumb after a roll: maybe a trick, then a die."""
    roll = r.roll
    if r.direction is None:
        # The start player's first roll: the end that lets the better die go further.
        best = None
        for direction in ("left", "right"):
            r.direction = direction
            gain = _best_die(r, side, roll)[0]
            if best is None or gain > best[0]:
                best = (gain, direction)
        r.direction = best[1]
    gain, die = _best_die(r, side, roll)
    if not r.used[side] and r.tricks[side] and r.supply[side] >= 2:
        actions = r.tricks[side]
        if "both" in actions and roll[0] != roll[1]:
            i, j = _index(r.direction, roll[0]), _index(r.direction, roll[1])
            both = _place_gain(r, side, i) + _place_gain(r, side, j)
            if both > gain + _TRICK_WORTH:
                actions.remove("both")
                r.used[side] = True
                r.held[side][8] -= 1
                _place(r, side, roll)
                return
        if "adjust" in actions:
            best = None
            for k in (0, 1):
                for delta in (1, -1):
                    v = roll[k] + delta
                    if 1 <= v <= 6:
                        g = _place_gain(r, side, _index(r.direction, v))
                        if best is None or g > best[0]:
                            best = (g, v)
            if best is not None and best[0] > gain + _TRICK_WORTH:
                actions.remove("adjust")
                r.used[side] = True
                r.held[side][8] -= 1
                _place(r, side, (best[1],))
                return
    if rng.random() < SLIP:
        die = rng.randrange(2)
    _place(r, side, (roll[die],))


def _playout(r: _Round, rng: random.Random) -> float:
    """Play the round out from a turn or a placement by the rule of thumb; its worth."""
    while True:
        side = r.turn
        if r.phase == "turn":
            supply = r.supply[side]
            placed = 6 - supply
            if supply < 2:
                return _share_out(r, side)
            if placed >= 2:
                now = _now_gain(r, side)
                if now > 0 and (supply <= 3 or r.supply[1 - side] <= 2 or rng.random() < CALL):
                    return _share_out(r, side)
            r.roll = (rng.randint(1, 6), rng.randint(1, 6))
            r.phase = "placement"
        _policy_placement(r, side, rng)


def _apply(r: _Round, command: dict, rng: random.Random) -> float | None:
    """Play the root command on the copy ``r``; the playout's worth if it ended the round."""
    side = r.seat
    kind = command["type"]
    if kind == "shanghai":
        return _share_out(r, side)
    if kind == "roll":
        r.roll = (rng.randint(1, 6), rng.randint(1, 6))
        r.phase = "placement"
        _policy_placement(r, side, rng)
        return None
    if kind == "direction":
        r.direction = command["one_at"]
        r.phase = "placement"
        _policy_placement(r, side, rng)
        return None
    if kind == "place":
        _place(r, side, (r.roll[command["die"]],))
        return None
    # a trick
    half = command["half"]
    r.used[side] = True
    r.tricks[side].remove(CARDS[command["card"]].action)
    if half == "wild":
        # The card leaves the unused tricks and joins the nation's crew as a sailor of 2.
        r.held[side][8] -= 1
        r.held[side][_NATION_INDEX[command["nation"]]] += 2
        r.worth = (_worths(r.held, 0, r.cards), _worths(r.held, 1, r.cards))
        _policy_placement(r, side, rng)
        return None
    r.held[side][8] -= 1
    if half == "adjust":
        roll = list(r.roll)
        roll[command["die"]] += command["delta"]
        r.roll = tuple(roll)
        _policy_placement(r, side, rng)
    elif half == "both":
        _place(r, side, r.roll)
    else:  # reroll: the new throw must be placed, no second trick
        r.roll = (rng.randint(1, 6), rng.randint(1, 6))
        _policy_placement(r, side, rng)
    return None


def _key(command: dict, state: GameState) -> tuple:
    """Commands with this key in common do the same thing."""
    kind = command["type"]
    if kind == "place":
        return ("place", state.roll[command["die"]])
    if kind == "trick":
        action = CARDS[command["card"]].action
        if command["half"] == "adjust":
            value = state.roll[command["die"]] + command["delta"]
            other = state.roll[1 - command["die"]]
            return ("adjust", value, other)
        return ("trick", command["half"], action, command.get("nation"))
    return (kind, command.get("one_at"))


def choose(state: GameState, seat: int, rng, playouts: int = PLAYOUTS) -> dict:
    """The command the rival plays for ``seat`` (on turn) with ``playouts`` playouts."""
    state = dataclasses.replace(state, deck=tuple(rng.sample(sorted(state.deck), len(state.deck))))
    candidates: dict[tuple, dict] = {}
    for command in legal_commands(state, seat):
        if command["type"] != "resign":
            candidates.setdefault(_key(command, state), command)
    commands = list(candidates.values())
    if len(commands) == 1:
        return commands[0]
    root = _from_state(state, seat)
    alive = list(range(len(commands)))
    totals = [0.0] * len(commands)
    counts = [0] * len(commands)
    passes = max(1, (len(commands) - 1).bit_length())
    per_pass = max(1, playouts // passes)
    while len(alive) > 1:
        each = max(2, per_pass // len(alive))
        seeds = [rng.getrandbits(32) for _ in range(each)]
        for k in alive:
            for s in seeds:
                dice = random.Random(s)
                r = root.copy()
                value = _apply(r, commands[k], dice)
                totals[k] += _playout(r, dice) if value is None else value
                counts[k] += 1
        alive.sort(key=lambda k: totals[k] / counts[k], reverse=True)
        alive = alive[: (len(alive) + 1) // 2]
    return commands[alive[0]]
