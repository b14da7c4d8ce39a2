"""How good a position is for one seat: the bots' common judgement.

``value(state, seat)`` estimates the chance that ``seat`` wins, from what the seat can
see: both players' crews and unused trick cards, the tavern with the dice on it, and
how many cards are still to come. The deck's order is never read (``choose``
shuffles it before anything looks at the state).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from functools import lru_cache

from games.rules.cards import CARDS, NATIONS
from games.rules.scoring import nation_points
from games.rules.state import TAVERN_SIZE, TURN, GameState, Player

# A trick card in hand scores 1 point; while rounds remain it may also be used.
TRICK_OPTION = 0.4


@dataclass(frozen=True, slots=True)
class Judgement:
    """The weights of one bot's judgement (the Deckhand's is blunter than the others')."""

    neighbours: bool = True  # does it see the neighbour sums that break a tie?
    dice_per_round: float = 3.5  # how many dice a player places in a round, as a rule
    swing: float = 2.2  # how sure a lead of one die is
    option: float = TRICK_OPTION
    land: float = 0.3  # the chance that one more die of a player lands on a given card
    # does it count the cards still to come in each nation (or only the crews as they are)?
    foresight: bool = True
    share: float = 0.35  # the chance each player takes a card still to come
    tavern: float = 1.0  # how much the tavern's expected share counts beside the crews
    # are trick cards in hand still worth using in the last round (until that round's
    # trick is used), or only their point?
    last_round_tricks: bool = False


SHARP = Judgement()
# The admiral's judgement: trick cards are worth more than the others think, in hand and
# on the table, and still worth using in the last round, and the tavern's cards a
# little less, being still to be fought for. As a one-move player (``policies.keen``) it
# wins about 65% against the same player judging by ``SHARP`` (``docs/bots.md``).
KEEN = Judgement(option=1.2, tavern=0.7, last_round_tricks=True)


def nation_diff(mine: int, theirs: int) -> int:
    """My points minus theirs for one nation, with these strengths."""
    return nation_points(mine, theirs) - nation_points(theirs, mine)


@lru_cache(maxsize=200_000)
def future_diff(mine: int, theirs: int, to_come: tuple[int, ...], share: float) -> float:
    """``nation_diff`` as expected at the game's end, when each card of ``to_come`` (the
    values of the nation's cards still in the deck) goes to either player with the chance
    ``share``, or is removed."""
    if not to_come:
        return nation_diff(mine, theirs)
    value, rest = to_come[0], to_come[1:]
    return (
        share * future_diff(mine + value, theirs, rest, share)
        + share * future_diff(mine, theirs + value, rest, share)
        + (1 - 2 * share) * future_diff(mine, theirs, rest, share)
    )


def deck_values(state: GameState) -> tuple[tuple[int, ...], ...]:
    """Per nation, the values of its cards still in the deck, in a fixed order."""
    return _deck_values(frozenset(state.deck))


@lru_cache(maxsize=4096)
def _deck_values(deck: frozenset) -> tuple[tuple[int, ...], ...]:
    values: list[list[int]] = [[] for _ in NATIONS]
    for card_id in deck:
        card = CARDS[card_id]
        if card.kind == "sailor":
            values[NATION_INDEX[card.nation]].append(card.value)
    return tuple(tuple(sorted(v)) for v in values)


def strengths(state: GameState, seat: int) -> tuple[list[int], list[int]]:
    """Each crew's strength in ``NATIONS`` order: ``seat``'s, then its opponent's."""
    me, them = state.players[seat], state.players[1 - seat]
    return list(_crews(me.sailors, me.wilds)), list(_crews(them.sailors, them.wilds))


@lru_cache(maxsize=65_536)
def _crews(sailors: tuple[str, ...], wilds: tuple[tuple[str, str], ...]) -> tuple[int, ...]:
    """``Player.strengths`` in ``NATIONS`` order, for a player's sailors and wilds (the
    searches ask for the same crews over and over)."""
    totals = Player(sailors=sailors, wilds=wilds).strengths()
    return tuple(totals[n] for n in NATIONS)


NATION_INDEX = {n: i for i, n in enumerate(NATIONS)}


def card_swing(card_id: str, mine: list[int], theirs: list[int], late: bool, j, coming):
    """(what ``card_id`` adds to my lead if I take it, what it adds if they do);
    ``coming``: ``deck_values``, or None to judge by the crews as they are."""
    card = CARDS[card_id]
    if card.kind == "trick":
        worth = 1 + (0 if late else j.option)
        return worth, -worth
    i = NATION_INDEX[card.nation]
    a, b, v = mine[i], theirs[i], card.value
    if coming is None:
        now = nation_diff(a, b)
        return nation_diff(a + v, b) - now, nation_diff(a, b + v) - now
    return _future_swing(a, b, v, coming[i], j.share)


@lru_cache(maxsize=200_000)
def _future_swing(a: int, b: int, v: int, rest: tuple[int, ...], share: float):
    """``card_swing`` of a sailor of value ``v`` by ``future_diff``, asked for once."""
    now = future_diff(a, b, rest, share)
    return future_diff(a + v, b, rest, share) - now, future_diff(a, b + v, rest, share) - now


def _sigmoid(x: float) -> float:
    return 1 / (1 + math.exp(-x))


def slot_chances(mine: int, theirs: int, edge: int, t_me: float, t_them: float, j: Judgement):
    """(chance I take the card, chance they do), with ``mine`` and ``theirs`` dice on it,
    ``edge`` the sign of my neighbour sum minus theirs, and each side expecting ``t``
    more dice somewhere on the table (a die lands on a given card about 3 times in 10)."""
    if mine == 0 and theirs == 0:
        a, b = 1 - (1 - j.land) ** t_me, 1 - (1 - j.land) ** t_them
        return a * (1 - b) + a * b / 2, b * (1 - a) + a * b / 2
    lead = mine - theirs + (0.45 * edge if j.neighbours else 0)
    if lead == 0:
        return 0.3, 0.3  # a tie is removed unless a die comes
    spread = math.sqrt(0.25 + j.land * (t_me + t_them))
    p = _sigmoid(j.swing * lead / spread)
    return p, 1 - p


def neighbour_edge(state: GameState, seat: int, index: int) -> int:
    mine = theirs = 0
    me, them = state.players[seat].dice, state.players[1 - seat].dice
    for k in (index - 1, index + 1):
        if 0 <= k < TAVERN_SIZE:
            number = state.number_of(k)
            mine += me[k] * number
            theirs += them[k] * number
    return (mine > theirs) - (mine < theirs)


def expected_lead(state: GameState, seat: int, j: Judgement = SHARP) -> float:
    """My final score minus theirs, as expected now."""
    mine, theirs = strengths(state, seat)
    late = state.round >= 8
    me, them = state.players[seat], state.players[1 - seat]
    coming = deck_values(state) if j.foresight else None
    lead = 0.0
    if coming is None:
        for a, b in zip(mine, theirs, strict=True):
            lead += nation_diff(a, b)
    else:
        share = j.share
        for a, b, rest in zip(mine, theirs, coming, strict=True):
            lead += future_diff(a, b, rest, share)
    lead += _in_hand(state, me, j) - _in_hand(state, them, j)
    if state.result is not None or all(c is None for c in state.tavern):
        return lead
    t_me = max(0.2, min(me.supply, j.dice_per_round - me.placed))
    t_them = max(0.2, min(them.supply, j.dice_per_round - them.placed))
    if state.phase == TURN and state.turn is not None:
        # whoever is on turn and may call Shanghai could end the round now
        on_turn = state.players[state.turn]
        if on_turn.placed >= 2:
            t_me, t_them = t_me * 0.7, t_them * 0.7
    tavern = 0.0
    empty = None  # the chances on a card without dice, the same for each
    for index, card_id in enumerate(state.tavern):
        if card_id is None:
            continue
        a, b = me.dice[index], them.dice[index]
        if a == 0 and b == 0:
            if empty is None:
                empty = slot_chances(0, 0, 0, t_me, t_them, j)
            p_me, p_them = empty
        else:
            edge = neighbour_edge(state, seat, index) if a == b and state.direction else 0
            p_me, p_them = slot_chances(a, b, edge, t_me, t_them, j)
        gain, loss = card_swing(card_id, mine, theirs, late, j, coming)
        tavern += p_me * gain + p_them * loss
    return lead + j.tavern * tavern


def _in_hand(state: GameState, player, j: Judgement) -> float:
    """What ``player``'s trick cards in hand are worth: a point each, and while they may
    still be used, ``j.option`` more."""
    usable = state.round < 8 or (
        j.last_round_tricks and not player.trick_used and state.result is None
    )
    return len(player.tricks) * (1 + (j.option if usable else 0))


def cards_to_come(state: GameState) -> int:
    return len(state.deck) + sum(1 for c in state.tavern if c is not None)


def value(state: GameState, seat: int, j: Judgement = SHARP, shift: float = 0.0) -> float:
    """The chance ``seat`` wins, roughly: the expected lead (moved by ``shift`` points)
    against how much can still change (the cards still to come)."""
    if state.result is not None:
        winner = state.result.winner
        return 0.5 if winner is None else float(winner == seat)
    lead = expected_lead(state, seat, j) + shift
    spread = 1.5 + 0.9 * math.sqrt(cards_to_come(state))
    return _sigmoid(1.7 * lead / spread)


# How a position at a round's start turns out, fitted to the results of 3,000 games
# between the bots (logistic regression, one fit per round; ``docs/bots.md``): by round,
# how much a point of expected lead weighs, and what beginning the round is worth
# (the start player chooses the direction and places first).
ROUND_FIT = {
    1: (0.14, 0.06),
    2: (0.15, 0.08),
    3: (0.16, 0.10),
    4: (0.17, 0.10),
    5: (0.18, 0.18),
    6: (0.18, 0.18),
    7: (0.21, 0.24),
    8: (0.24, 0.30),
}
CALIBRATED = replace(KEEN, share=0.3)


def calibrated_value(state: GameState, seat: int) -> float:
    """The chance ``seat`` wins, fitted to how games between the bots ended: the
    expected lead weighed by the round, and the advantage of beginning the round."""
    if state.result is not None:
        winner = state.result.winner
        return 0.5 if winner is None else float(winner == seat)
    weight, start = ROUND_FIT[state.round]
    lead = expected_lead(state, seat, CALIBRATED)
    return _sigmoid(weight * lead + (start if state.start_player == seat else -start))


def start_worth(round_no: int) -> float:
    """What beginning round ``round_no`` is worth, in points of expected lead, against the
    opponent beginning it (``ROUND_FIT``: twice its start term over its weight); nothing
    past the last round."""
    if round_no not in ROUND_FIT:
        return 0.0
    weight, start = ROUND_FIT[round_no]
    return 2 * start / weight
