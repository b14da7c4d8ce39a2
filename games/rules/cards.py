"""The cards of Shanghaien: 40 sailors, 8 dirty tricks and the variant's extra wild card.

Every card has a short, stable id that appears in commands, events and views:
sailors are ``<nation>-<value>`` (the two threes of a nation are ``-3a`` and ``-3b``),
trick cards are ``T1`` … ``T8``, and the extra wild cards of the variant are ``X1``
(seat 0) and ``X2`` (seat 1).
"""

from __future__ import annotations

from dataclasses import dataclass

NATIONS: tuple[str, ...] = (
    "american",
    "french",
    "german",
    "chinese",
    "dutch",
    "turkish",
    "spanish",
    "italian",
)

# The card colour of each nationality, as printed on the cards.
NATION_COLOURS: dict[str, str] = {
    "american": "red",
    "french": "light blue",
    "german": "dark blue",
    "chinese": "yellow",
    "dutch": "orange",
    "turkish": "purple",
    "spanish": "green",
    "italian": "grey",
}

SAILOR_VALUES: tuple[int, ...] = (1, 2, 3, 3, 4)

# A trick card played as "2 Sailors" counts as a sailor of this value.
WILD_VALUE = 2

# The actions on the lower half of the eight trick cards. The printed split is not
# known from any source, so this is a decision of the server: 3 × Die ±1,
# 3 × Add both dice, 2 × Roll again.
TRICK_ACTIONS: tuple[str, ...] = ("adjust",) * 3 + ("both",) * 3 + ("reroll",) * 2

# The variant's extra card, one per player from outside the deck: 2 Sailors / Die ±1.
EXTRA_WILD_ACTION = "adjust"
EXTRA_WILD_IDS: tuple[str, str] = ("X1", "X2")

ACTIONS: tuple[str, ...] = ("adjust", "both", "reroll")
HALVES: tuple[str, ...] = ("wild", *ACTIONS)


@dataclass(frozen=True, slots=True)
class Card:
    id: str
    kind: str  # "sailor" or "trick"
    nation: str | None = None
    value: int | None = None
    action: str | None = None

    def to_json(self) -> dict:
        if self.kind == "sailor":
            return {"id": self.id, "kind": "sailor", "nation": self.nation, "value": self.value}
        return {"id": self.id, "kind": "trick", "action": self.action}


def _sailors() -> list[Card]:
    cards = []
    for nation in NATIONS:
        threes = iter("ab")
        for value in SAILOR_VALUES:
            suffix = f"{value}{next(threes)}" if value == 3 else str(value)
            cards.append(Card(f"{nation}-{suffix}", "sailor", nation=nation, value=value))
    return cards


_TRICKS = [Card(f"T{i}", "trick", action=a) for i, a in enumerate(TRICK_ACTIONS, start=1)]
_EXTRAS = [Card(card_id, "trick", action=EXTRA_WILD_ACTION) for card_id in EXTRA_WILD_IDS]

# The 48 tavern cards in a fixed order; a game shuffles a copy of these ids.
DECK: tuple[str, ...] = tuple(card.id for card in _sailors() + _TRICKS)

CARDS: dict[str, Card] = {card.id: card for card in _sailors() + _TRICKS + _EXTRAS}

TRICK_IDS: frozenset[str] = frozenset(card.id for card in _TRICKS + _EXTRAS)


def card(card_id: str) -> Card:
    return CARDS[card_id]


def all_card_ids(extra_wild: bool) -> tuple[str, ...]:
    """Every card that takes part in a game of the given variant."""
    return DECK + (EXTRA_WILD_IDS if extra_wild else ())
