"""Immutable game state. Every change makes a new object (see ``engine.evolve``)."""

from __future__ import annotations

from dataclasses import dataclass

from .cards import CARDS, NATIONS, WILD_VALUE

SEATS = (0, 1)
DICE_PER_PLAYER = 6
TAVERN_SIZE = 6
ROUNDS = 8

# What the player on turn is asked for.
TURN = "turn"  # roll or call Shanghai
DIRECTION = "direction"  # the start player saw the round's first roll: which end is 1?
PLACEMENT = "placement"  # a roll is pending: place a die, or first play a trick
FINISHED = "finished"
PHASES = (TURN, DIRECTION, PLACEMENT, FINISHED)


def other(seat: int) -> int:
    return 1 - seat


@dataclass(frozen=True, slots=True)
class Player:
    # How many of this player's dice stand on each tavern card, in screen order.
    dice: tuple[int, ...] = (0,) * TAVERN_SIZE
    sailors: tuple[str, ...] = ()  # sailor cards won, in the order won
    wilds: tuple[tuple[str, str], ...] = ()  # (trick card id, nation) played as 2 Sailors
    tricks: tuple[str, ...] = ()  # trick cards in hand, not yet used
    trick_used: bool = False  # the captain is out: a trick was used this round
    moved: bool = False  # has made a move (under the old abort rule: until both had)

    @property
    def placed(self) -> int:
        return sum(self.dice)

    @property
    def supply(self) -> int:
        return DICE_PER_PLAYER - sum(self.dice)

    def holds_nation(self, nation: str) -> bool:
        """Whether the player holds a real sailor card of the nation (wilds do not count)."""
        return any(CARDS[c].nation == nation for c in self.sailors)

    def strength(self, nation: str) -> int:
        return self.strengths()[nation]

    def strengths(self) -> dict[str, int]:
        """Crew strength per nation: card values, plus WILD_VALUE for each wild sailor."""
        totals = dict.fromkeys(NATIONS, 0)
        for card_id in self.sailors:
            card = CARDS[card_id]
            totals[card.nation] += card.value
        for _, nation in self.wilds:
            totals[nation] += WILD_VALUE
        return totals


@dataclass(frozen=True, slots=True)
class CardOutcome:
    """How one tavern card was shared out at a Shanghai."""

    card: str
    dice: tuple[int, int]  # dice on the card per seat
    number: int  # the card's position 1–6 in the round's direction
    neighbours: tuple[int, int] | None  # pip sums beside the card, where they decided
    to: int | None  # the seat that took it, or None: removed from the game
    reason: str  # "unclaimed", "alone", "majority", "neighbours" or "tie"


@dataclass(frozen=True, slots=True)
class RoundReport:
    round: int
    called_by: int
    direction: str
    cards: tuple[CardOutcome, ...]


@dataclass(frozen=True, slots=True)
class Score:
    total: int
    by_nation: tuple[tuple[str, int], ...]  # points per nation, in NATIONS order
    tricks: int  # one point per unused trick card


@dataclass(frozen=True, slots=True)
class Result:
    winner: int | None  # None: a draw
    reason: str  # "completed", "resignation", …
    scores: tuple[Score, Score]


@dataclass(frozen=True, slots=True)
class GameState:
    extra_wild: bool
    deck: tuple[str, ...]  # face-down cards, top first: secret
    tavern: tuple[str | None, ...]  # screen order; all None between rounds and at the end
    round: int
    start_player: int
    turn: int | None
    phase: str
    direction: str | None  # the on-screen end that is number 1: "left" or "right"
    roll: tuple[int, int] | None
    players: tuple[Player, Player]
    discarded: tuple[str, ...] = ()  # removed from the game: unclaimed cards, spent tricks
    last_round: RoundReport | None = None
    result: Result | None = None

    @property
    def finished(self) -> bool:
        return self.result is not None

    def number_of(self, index: int) -> int:
        """The position 1–6 of the tavern slot at screen index 0–5, in this round's direction."""
        return index + 1 if self.direction == "left" else TAVERN_SIZE - index

    def index_of(self, number: int) -> int:
        """The screen index 0–5 of tavern position 1–6, in this round's direction."""
        return number - 1 if self.direction == "left" else TAVERN_SIZE - number
