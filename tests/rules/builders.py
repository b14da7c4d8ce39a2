"""Building positions for rule tests: scripted dice and hand-made tables."""

from __future__ import annotations

from dataclasses import replace

from games.rules import DECK, decide, evolve, replay
from games.rules.state import TAVERN_SIZE, GameState, Player


class ScriptedDice:
    """An rng whose dice are given in advance and whose shuffle keeps the catalogue order."""

    def __init__(self, *values: int, first_player: int = 0):
        self.values = list(values)
        self.first_player = first_player

    def randint(self, a: int, b: int) -> int:
        if (a, b) == (0, 1):
            return self.first_player
        if not self.values:
            raise AssertionError("the test rolled more dice than it scripted")
        return self.values.pop(0)

    def shuffle(self, items: list) -> None:
        pass


def start(
    first_player: int = 0, extra_wild: bool = False, deck: list[str] | None = None
) -> GameState:
    """A new game with a known deck (catalogue order unless given) and start player."""
    deck = list(deck or DECK)
    return replay(
        [
            {
                "type": "game_started",
                "deck": deck,
                "first_player": first_player,
                "extra_wild": extra_wild,
            },
            {
                "type": "round_started",
                "round": 1,
                "start_player": first_player,
                "tavern": deck[:TAVERN_SIZE],
            },
        ]
    )


def act(state: GameState, seat: int, command: dict, *dice: int) -> GameState:
    """Apply ``command`` by ``seat`` with the given dice, returning the new state."""
    for event in decide(state, seat, command, ScriptedDice(*dice)):
        state = evolve(state, event)
    return state


def roll(state: GameState, seat: int, a: int, b: int) -> GameState:
    return act(state, seat, {"type": "roll"}, a, b)


def place(state: GameState, seat: int, die: int = 0) -> GameState:
    return act(state, seat, {"type": "place", "die": die})


def set_player(state: GameState, seat: int, **changes) -> GameState:
    players = list(state.players)
    players[seat] = replace(players[seat], **changes)
    return replace(state, players=(players[0], players[1]))


def table(tavern: list[str], red: list[int], blue: list[int], direction: str = "left") -> GameState:
    """A round in progress: ``red`` (seat 0) and ``blue`` (seat 1) list their placed die values."""
    rest = [c for c in DECK if c not in tavern]
    state = start(deck=tavern + rest)
    state = replace(state, direction=direction)
    for seat, values in ((0, red), (1, blue)):
        dice = [0] * TAVERN_SIZE
        for value in values:
            dice[state.index_of(value)] += 1
        state = set_player(state, seat, dice=tuple(dice))
    return state


__all__ = ["Player", "ScriptedDice", "act", "place", "roll", "set_player", "start", "table"]
