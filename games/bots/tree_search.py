"""The admiral's search: a tree over the rest of the round, with the dice as chance.

Inside a round nothing is hidden: both players see the tavern, the dice on it and every
roll. What a player does not know is the deck's order, and it matters only once the
round is shared out and the next tavern is dealt. So the admiral searches the round
as a game of chance with open cards (Monte-Carlo tree search with chance nodes), and
where the round ends it deals the next tavern from a fresh shuffle of the unknown
deck (a new one each time, so the estimate is an average over deals, never one
guessed order) and judges the position by ``evaluation.value``.

Each iteration walks from the root: at a choice, the mover takes the command with the
best upper confidence bound from its own side (the admiral's chance to win for its own
seat, one minus it for the opponent); at a roll, the dice are thrown by the rng. A
position met for the first time is judged at once. The command played is the one
tried most often at the root.
"""

from __future__ import annotations

import math
import time
from dataclasses import replace

from games.rules.engine import Command, decide, evolve
from games.rules.state import GameState

from .evaluation import value
from .players import Loaded, playable
from .policies import greedy, judged

DEFAULT_MODE = "static"
MODE = DEFAULT_MODE
ITERATIONS = 400  # the default number of walks through the tree for one decision
EXPLORATION = 0.5  # the weight of the upper confidence bound's doubt


def _throws(command: Command) -> bool:
    return command["type"] == "roll" or (
        command["type"] == "trick" and command.get("half") == "reroll"
    )


class Node:
    __slots__ = ("state", "commands", "visits", "totals", "children", "end", "round")

    def __init__(self, state: GameState):
        self.state = state
        self.round = state.round
        self.end = state.finished
        self.commands = [] if self.end else playable(state, state.turn)
        self.visits = [0] * len(self.commands)
        self.totals = [0.0] * len(self.commands)
        self.children: dict = {}


class Search:
    """One decision's tree, for ``seat``, from ``state`` (its deck order already unseen)."""

    def __init__(self, state: GameState, seat: int, rng, exploration: float = EXPLORATION):
        self.seat = seat
        self.rng = rng
        self.exploration = exploration
        self.root = Node(state)
        self.deck = sorted(state.deck)
        self.turns = 0

    def _step(self, state: GameState, command: Command, dice) -> GameState:
        mover = state.turn
        if command["type"] == "shanghai":
            # the next tavern comes from a fresh shuffle of the cards still unseen
            state = replace(state, deck=tuple(self.rng.sample(self.deck, len(self.deck))))
        for event in decide(state, mover, command, Loaded(dice or ())):
            state = evolve(state, event)
        return state

    def _select(self, node: Node) -> int:
        visits = node.visits
        for index, count in enumerate(visits):
            if count == 0:
                return index
        mine = node.state.turn == self.seat
        scale = self.exploration * math.sqrt(math.log(sum(visits)))
        best, choice = -1.0, 0
        for index, count in enumerate(visits):
            mean = node.totals[index] / count
            score = (mean if mine else 1.0 - mean) + scale / math.sqrt(count)
            if score > best:
                best, choice = score, index
        return choice

    def iterate(self) -> None:
        node, path = self.root, []
        while True:
            index = self._select(node)
            command = node.commands[index]
            dice = None
            if _throws(command):
                dice = (self.rng.randint(1, 6), self.rng.randint(1, 6))
            path.append((node, index))
            key = (index, dice)
            child = node.children.get(key)
            if command["type"] == "shanghai" or child is None:
                nxt = self._step(node.state, command, dice)
                if nxt.finished or nxt.round != self.root.round:
                    result = value(nxt, self.seat)  # the round is over: judged, not searched
                    break
                child = Node(nxt)
                node.children[key] = child
                result = self._leaf(nxt)
                break
            node = child
        for visited, index in path:
            visited.visits[index] += 1
            visited.totals[index] += result

    def _leaf(self, state: GameState) -> float:
        if MODE == "static":
            return value(state, self.seat)
        self.turns += 1
        other = judged if self.turns % 2 else greedy
        round_no = state.round
        while not state.finished and state.round == round_no:
            mover = state.turn
            commands = playable(state, mover)
            if len(commands) == 1:
                command = commands[0]
            else:
                policy = judged if mover == self.seat else other
                command = policy(state, mover, commands, self.rng)
            if command["type"] == "shanghai":
                state = replace(state, deck=tuple(self.rng.sample(self.deck, len(self.deck))))
            for event in decide(state, mover, command, self.rng):
                state = evolve(state, event)
        return value(state, self.seat)

    def run(self, iterations: int, deadline: float | None = None) -> None:
        for done in range(iterations):
            if deadline is not None and done % 16 == 0 and time.monotonic() > deadline:
                break
            self.iterate()

    def best(self) -> Command:
        root = self.root
        index = max(
            range(len(root.commands)),
            key=lambda i: (root.visits[i], root.totals[i] / max(1, root.visits[i]), -i),
        )
        return root.commands[index]

    def chances(self) -> list[float]:
        root = self.root
        return [t / v if v else 0.0 for t, v in zip(root.totals, root.visits, strict=True)]


def decide_by_tree(
    state: GameState, seat: int, rng, iterations: int = ITERATIONS, deadline: float | None = None
) -> Command:
    search = Search(state, seat, rng)
    search.run(iterations, deadline)
    return search.best()
