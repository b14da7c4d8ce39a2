"""Computer opponents for Shanghaien: pure Python beside the rules engine (no Django,
no I/O, no global state).

Public API
----------
``choose(state, seat, level, rng) -> command``
    The command the bot of ``level`` plays for ``seat`` in ``state``: one of
    ``games.rules.legal_commands(state, seat)`` (never a resignation or an abort), the
    same dict. ``seat`` must be on turn. ``rng`` is any object with ``random()``,
    ``shuffle(list)`` and ``choice(seq)``, such as ``random.Random``; the same state,
    level and rng state give the same command. A bot knows what its seat's player
    knows: the deck's order in ``state`` is shuffled away before it looks (which cards
    are still to come is public; their order is not).
``LEVELS``
    ``("deckhand", "boatswain", "captain")``, weakest first:

    - **deckhand**: plays sensibly but like a beginner: it does not see neighbour sums,
      sometimes picks a worse move, and uses trick cards only now and then.
    - **boatswain**: weighs every command by the chance to win it leads to: dice
      majorities and neighbour sums on each card, what each card is worth to either
      crew, unused tricks, and when a Shanghai pays; over every throw of the dice.
    - **captain**: searches: the boatswain's best few commands, each played out to the
      end of the round many times over shuffles of the unknown deck and throws of the
      dice (determinized Monte-Carlo, ``search.py``), judged by the boatswain's
      evaluation where each playout ends.
``weigh(state, seat, commands, rng) -> list[float]``
    The captain's estimate of ``seat``'s chance to win after each of ``commands``
    (legal commands of ``seat``, on turn), the deck's order unseen as in ``choose``;
    deterministic for a given rng state. The analysis of a finished game asks it.
``candidates(state, seat) -> list``
    The commands the captain weighs in ``state`` (its best guesses, best first).
``BASELINES``
    ``("random", "greedy")``, for measuring the levels (``bench/bots.py``): a uniformly
    random player, and one that takes the best score it would have if the round ended
    right after its move.
"""

from __future__ import annotations

from dataclasses import replace

from games.rules.cards import CARDS
from games.rules.distribution import outcome
from games.rules.state import PLACEMENT, TURN, GameState

from .evaluation import NATION_INDEX, SHARP, Judgement, nation_diff, strengths
from .players import Lookahead, after, playable
from .search import best_by_playouts, estimates
from .search import candidates as candidates

LEVELS = ("deckhand", "boatswain", "captain")
BASELINES = ("random", "greedy")

BLUNT = Judgement(neighbours=False, swing=1.6, option=0.0, foresight=False)
DECKHAND_SLIPS = 0.15  # how often the deckhand plays a move that is not its best


def choose(state: GameState, seat: int, level: str, rng) -> dict:
    if state.turn != seat:
        raise ValueError("the bot's seat is not on turn")
    if level not in LEVELS + BASELINES:
        raise ValueError(f"no bot level {level!r}")
    state = replace(state, deck=tuple(rng.sample(sorted(state.deck), len(state.deck))))
    commands = playable(state, seat)
    if len(commands) == 1:
        return commands[0]
    if level == "random":
        return rng.choice(commands)
    if level == "greedy":
        return _greedy(state, seat, commands, rng)
    if level == "deckhand":
        return _deckhand(state, seat, commands, rng)
    if level == "captain":
        return best_by_playouts(state, seat, rng, _greedy)
    return Lookahead(seat, SHARP).ranked(state)[0][1]


def weigh(state: GameState, seat: int, commands: list, rng) -> list[float]:
    if state.turn != seat:
        raise ValueError("the seat is not on turn")
    state = replace(state, deck=tuple(rng.sample(sorted(state.deck), len(state.deck))))
    return estimates(state, seat, commands, rng, _greedy)


def _deckhand(state: GameState, seat: int, commands: list, rng) -> dict:
    if state.phase == PLACEMENT:
        plain = [c for c in commands if c["type"] != "trick"]
        if rng.random() > 0.2:
            commands = plain  # a trick card, now and then
    ranked = Lookahead(seat, BLUNT).ranked_among(state, commands)
    if len(ranked) > 1 and rng.random() < DECKHAND_SLIPS:
        return ranked[1][1]
    return ranked[0][1]


def _round_end_lead(state: GameState, seat: int) -> float:
    """My score minus theirs if the round were shared out now."""
    mine, theirs = strengths(state, seat)
    tricks = len(state.players[seat].tricks) - len(state.players[1 - seat].tricks)
    if state.direction is not None and state.tavern[0] is not None:
        for index, card_id in enumerate(state.tavern):
            to = outcome(state, index).to
            if to is None:
                continue
            card = CARDS[card_id]
            if card.kind == "trick":
                tricks += 1 if to == seat else -1
            else:
                crew = mine if to == seat else theirs
                crew[NATION_INDEX[card.nation]] += card.value
    return tricks + sum(nation_diff(a, b) for a, b in zip(mine, theirs, strict=True))


def _greedy(state: GameState, seat: int, commands: list, rng) -> dict:
    """The best score right after the move, were the round shared out then."""
    if state.phase == TURN:
        if {"type": "shanghai"} in commands and (
            {"type": "roll"} not in commands
            or _round_end_lead(state, seat) > _holding_lead(state, seat)
        ):
            return {"type": "shanghai"}
        return {"type": "roll"}
    best, choice = None, []
    for command in commands:
        if command["type"] == "trick" and command["half"] == "reroll":
            continue  # its outcome is not known: no immediate score
        lead = _round_end_lead(after(state, seat, command), seat)
        if best is None or lead > best:
            best, choice = lead, [command]
        elif lead == best:
            choice.append(command)
    return rng.choice(choice)


def _holding_lead(state: GameState, seat: int) -> float:
    mine, theirs = strengths(state, seat)
    tricks = len(state.players[seat].tricks) - len(state.players[1 - seat].tricks)
    return tricks + sum(nation_diff(a, b) for a, b in zip(mine, theirs, strict=True))
