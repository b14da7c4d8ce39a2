"""The rulebook's two worked examples, played out by the engine for the "How to play" page.

Nothing here decides an outcome: the examples are games started with a chosen deck and
played with chosen dice through ``decide`` and ``evolve``, so the distribution and the
final score the page shows are the engine's own. Seat 0 is red, seat 1 blue (the page
shows both from red's side, as a player sees their own board).

- ``distribution_example()``: one round in which red places 2, 2, 3, 6, 6 and blue
  3, 4, 5, 6, 6 (RULES.md, "Distribution"), and red's first turn of the next round.
- ``scoring_example()``: the last round of a game whose crews are the rulebook's scoring
  example (RULES.md, "End of game and scoring"): red 7 points, blue 8.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .cards import DECK
from .engine import Event, decide, evolve, replay
from .state import ROUNDS, TAVERN_SIZE, GameState, Player

RED, BLUE = 0, 1


class ScriptedRng:
    """An rng whose dice are given in advance (and whose shuffle changes nothing)."""

    def __init__(self, dice: list[int]):
        self.dice = list(dice)

    def randint(self, a: int, b: int) -> int:
        if not self.dice:
            raise ValueError("the example rolled more dice than it scripted")
        return self.dice.pop(0)

    def shuffle(self, items: list) -> None:
        pass


@dataclass(frozen=True)
class Played:
    """A state reached by commands, and every event on the way (for telling the moves)."""

    state: GameState
    events: tuple[Event, ...]


def _play(state: GameState, moves: list[tuple[int, dict, list[int]]]) -> Played:
    """Apply each (seat, command, dice) with ``decide``; the dice are the roll's outcome."""
    events: list[Event] = []
    for seat, command, dice in moves:
        for event in decide(state, seat, command, ScriptedRng(dice)):
            state = evolve(state, event)
            events.append(event)
    return Played(state, tuple(events))


def _started(deck: list[str], first_player: int = RED) -> GameState:
    """A new game dealt from ``deck`` (the rest of the 48 cards follow in catalogue order)."""
    rest = [c for c in DECK if c not in deck]
    order = list(deck) + rest
    return replay(
        [
            {
                "type": "game_started",
                "deck": order,
                "first_player": first_player,
                "extra_wild": False,
            },
            {
                "type": "round_started",
                "round": 1,
                "start_player": first_player,
                "tavern": order[:TAVERN_SIZE],
            },
        ]
    )


def _roll_and_place(seat: int, dice: tuple[int, int], keep: int) -> list[tuple[int, dict, list]]:
    """A turn: roll ``dice`` and place the die at index ``keep``."""
    return [(seat, {"type": "roll"}, list(dice)), (seat, {"type": "place", "die": keep}, [])]


# -- example (a): the distribution of a round --------------------------------------------

# Round 1's tavern in screen order; red puts number 1 at the left end, so these are
# positions 1 to 6. Red wins the trick card at 2 and uses it in round 2.
DISTRIBUTION_TAVERN = ("italian-2", "T1", "chinese-4", "french-1", "dutch-3a", "american-4")
# Round 2's tavern, dealt after the Shanghai.
NEXT_TAVERN = ("german-2", "spanish-3a", "turkish-1", "T7", "chinese-3a", "italian-4")
RED_PLACES = (2, 2, 3, 6, 6)
BLUE_PLACES = (3, 4, 5, 6, 6)


@dataclass(frozen=True)
class DistributionExample:
    choosing: GameState  # red's first roll of round 1: which end is number 1?
    before: GameState  # every die placed; red has one die left and must call Shanghai
    after: GameState  # the Shanghai: round 1 shared out, round 2 dealt
    trick: GameState  # round 2, red's first roll: place a die or play the trick card won
    events: tuple[Event, ...]  # round 1, from red's first roll to the Shanghai


def distribution_example() -> DistributionExample:
    state = _started(list(DISTRIBUTION_TAVERN + NEXT_TAVERN))
    # Red starts: rolls 2 and 5, puts number 1 at the left end, places the 2.
    first_roll = _play(state, [(RED, {"type": "roll"}, [2, 5])])
    turns = [
        (RED, {"type": "direction", "one_at": "left"}, []),
        (RED, {"type": "place", "die": 0}, []),
        *_roll_and_place(BLUE, (4, 1), 0),
        *_roll_and_place(RED, (3, 6), 1),
        *_roll_and_place(BLUE, (2, 6), 1),
        *_roll_and_place(RED, (2, 4), 0),
        *_roll_and_place(BLUE, (5, 5), 0),
        *_roll_and_place(RED, (1, 3), 1),
        *_roll_and_place(BLUE, (3, 6), 0),
        *_roll_and_place(RED, (6, 6), 0),
        *_roll_and_place(BLUE, (1, 6), 1),
    ]
    placed = _play(first_roll.state, turns)
    shanghai = _play(placed.state, [(RED, {"type": "shanghai"}, [])])
    # Round 2: blue starts (red called Shanghai) and puts number 1 at the right end.
    next_round = _play(
        shanghai.state,
        [
            (BLUE, {"type": "roll"}, [4, 2]),
            (BLUE, {"type": "direction", "one_at": "right"}, []),
            (BLUE, {"type": "place", "die": 0}, []),
            (RED, {"type": "roll"}, [3, 5]),
        ],
    )
    return DistributionExample(
        choosing=first_roll.state,
        before=placed.state,
        after=shanghai.state,
        trick=next_round.state,
        events=first_roll.events + placed.events + shanghai.events,
    )


# -- example (b): the final score ----------------------------------------------------------

# The crews at the end of round 7. Red played two trick cards as "2 Sailors" (wild
# Spanish sailors); blue kept one trick card ("2 Sailors / Add both dice") unused.
RED_CREW = Player(
    sailors=(
        "spanish-3a",
        "french-1",
        "french-4",
        "american-1",
        "american-2",
        "american-3a",
        "chinese-1",
    ),
    wilds=(("T4", "spanish"), ("T5", "spanish")),
)
BLUE_CREW = Player(
    sailors=(
        "french-2",
        "french-3a",
        "american-3b",
        "american-4",
        "chinese-3a",
        "chinese-3b",
        "chinese-4",
    ),
    tricks=("T6",),
)
# The last tavern: both players put their two dice on the same two end cards, where the
# neighbour sums tie, so round 8 gives nobody a card and the crews above are scored.
LAST_TAVERN = ("german-1", "german-2", "dutch-1", "dutch-2", "turkish-1", "italian-1")


def _crew_cards(player: Player) -> set[str]:
    return {*player.sailors, *(card for card, _ in player.wilds), *player.tricks}


@dataclass(frozen=True)
class ScoringExample:
    final: GameState  # the game over, with the engine's result
    events: tuple[Event, ...]  # round 8, from the first roll to the end


def scoring_example() -> ScoringExample:
    kept = _crew_cards(RED_CREW) | _crew_cards(BLUE_CREW)
    gone = [c for c in DECK if c not in kept and c not in LAST_TAVERN]
    start = _started(list(LAST_TAVERN))
    # After round 7: the crews are won, every other card left the game, and the deck
    # holds only the last tavern, which the engine deals as round 8 (red starts).
    after_seven = replace(
        start,
        deck=LAST_TAVERN,
        tavern=(None,) * TAVERN_SIZE,
        round=ROUNDS - 1,
        turn=None,
        players=(replace(RED_CREW, moved=True), replace(BLUE_CREW, moved=True)),
        discarded=tuple(gone),
    )
    dealt = evolve(
        after_seven,
        {
            "type": "round_started",
            "round": ROUNDS,
            "start_player": RED,
            "tavern": list(LAST_TAVERN),
        },
    )
    played = _play(
        dealt,
        [
            (RED, {"type": "roll"}, [1, 3]),
            (RED, {"type": "direction", "one_at": "left"}, []),
            (RED, {"type": "place", "die": 0}, []),
            *_roll_and_place(BLUE, (1, 4), 0),
            *_roll_and_place(RED, (5, 6), 1),
            *_roll_and_place(BLUE, (6, 2), 0),
            (RED, {"type": "shanghai"}, []),
        ],
    )
    return ScoringExample(final=played.state, events=played.events)
