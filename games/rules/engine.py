"""Deciding and folding: the whole game as pure functions.

``decide`` checks a command against the state and returns the events it causes, with
every random outcome in them; ``evolve`` folds one event into the state. Because the
events carry the dice and the deck order, ``replay`` rebuilds any game without an RNG.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import fields
from typing import Any, Protocol

from .cards import CARDS, EXTRA_WILD_IDS, NATIONS, all_card_ids
from .cards import DECK as BASE_DECK
from .distribution import distribute
from .illegal import IllegalCommand
from .scoring import score, winner_of
from .shapes import parse_command
from .state import (
    DIRECTION,
    FINISHED,
    PLACEMENT,
    ROUNDS,
    SEATS,
    TAVERN_SIZE,
    TURN,
    GameState,
    Player,
    Result,
    other,
)

Event = dict[str, Any]
Command = dict[str, Any]


class Rng(Protocol):
    def randint(self, a: int, b: int) -> int: ...
    def shuffle(self, x: list) -> None: ...


MaybeRng = Rng | None


# -- starting ---------------------------------------------------------------------------


def new_game(rng: Rng, extra_wild: bool = False) -> tuple[GameState, list[Event]]:
    """Shuffle, pick the first start player, deal round 1. Returns the state and its events."""
    deck = list(BASE_DECK)
    rng.shuffle(deck)
    first = rng.randint(0, 1)
    events = [
        {"type": "game_started", "deck": deck, "first_player": first, "extra_wild": extra_wild},
        _deal(1, first, deck),
    ]
    return replay(events), events


def _deal(round_no: int, start_player: int, deck: list[str] | tuple[str, ...]) -> Event:
    return {
        "type": "round_started",
        "round": round_no,
        "start_player": start_player,
        "tavern": list(deck[:TAVERN_SIZE]),
    }


# -- deciding ---------------------------------------------------------------------------


def decide(
    state: GameState,
    seat: int,
    command: Any,
    rng: Rng | None = None,
    *,
    legacy_abort: bool = False,
) -> list[Event]:
    """The events that ``command`` by ``seat`` causes, or ``IllegalCommand``.

    ``rng`` is needed only for commands that roll dice. ``legacy_abort`` applies the
    abort rule of games made before the scheme hmac-sha256-v2 (see ``can_abort``); only
    the record checker uses it, to check those games' logs.
    """
    command = parse_command(command)
    if seat not in SEATS:
        raise IllegalCommand("not_a_player")
    if state.finished:
        raise IllegalCommand("game_over")
    kind = command["type"]
    if kind == "resign":
        resigned = {"type": "game_ended", "reason": "resignation", "winner": other(seat)}
        return [{**resigned, "seat": seat}]
    if kind == "abort":
        if not can_abort(state, legacy_abort=legacy_abort):
            raise IllegalCommand("cannot_abort")
        return [{"type": "game_ended", "reason": "aborted", "winner": None, "seat": seat}]
    if state.turn != seat:
        raise IllegalCommand("not_your_turn")
    return _DECIDERS[kind](state, seat, command, rng)


def _expect_phase(state: GameState, wanted: str) -> None:
    if state.phase == wanted:
        return
    if wanted == DIRECTION:
        raise IllegalCommand("direction_not_expected")
    if state.phase == DIRECTION:
        raise IllegalCommand("must_choose_direction")
    if state.phase == PLACEMENT:
        raise IllegalCommand("already_rolled")
    raise IllegalCommand("roll_first")


def _roll(rng: Rng | None) -> list[int]:
    if rng is None:
        raise ValueError("rolling dice needs an rng")
    return [rng.randint(1, 6), rng.randint(1, 6)]


def _decide_roll(state: GameState, seat: int, command: Command, rng: MaybeRng) -> list[Event]:
    _expect_phase(state, TURN)
    if state.players[seat].supply < 2:
        raise IllegalCommand("must_shanghai")
    return [{"type": "rolled", "seat": seat, "dice": _roll(rng)}]


def _decide_shanghai(state: GameState, seat: int, command: Command, rng: MaybeRng) -> list[Event]:
    _expect_phase(state, TURN)
    if state.players[seat].placed < 2:
        raise IllegalCommand("cannot_shanghai_yet")
    events: list[Event] = [{"type": "shanghai_called", "seat": seat}]
    if state.round == ROUNDS:
        events.append({"type": "game_ended", "reason": "completed"})
    else:
        events.append(_deal(state.round + 1, other(seat), state.deck))
    return events


def _decide_direction(state: GameState, seat: int, command: Command, rng: MaybeRng) -> list[Event]:
    _expect_phase(state, DIRECTION)
    return [{"type": "direction_chosen", "seat": seat, "one_at": command["one_at"]}]


def _decide_place(state: GameState, seat: int, command: Command, rng: MaybeRng) -> list[Event]:
    _expect_phase(state, PLACEMENT)
    assert state.roll is not None
    return [{"type": "placed", "seat": seat, "values": [state.roll[command["die"]]]}]


def _decide_trick(state: GameState, seat: int, command: Command, rng: MaybeRng) -> list[Event]:
    _expect_phase(state, PLACEMENT)
    player = state.players[seat]
    if player.trick_used:
        raise IllegalCommand("trick_already_used")
    card_id, half = command["card"], command["half"]
    if card_id not in player.tricks:
        raise IllegalCommand("no_such_trick", f"You hold no usable trick card {card_id!r}.")
    if half != "wild" and CARDS[card_id].action != half:
        raise IllegalCommand(
            "wrong_half", f"Card {card_id} offers '2 Sailors' or {CARDS[card_id].action!r}."
        )
    event: Event = {"type": "trick_played", "seat": seat, "card": card_id, "half": half}
    assert state.roll is not None
    if half == "wild":
        if not player.holds_nation(command["nation"]):
            raise IllegalCommand(
                "nation_not_held",
                f"A wild sailor can only join {command['nation']} sailors you already hold.",
            )
        return [{**event, "nation": command["nation"]}]
    if half == "adjust":
        value = state.roll[command["die"]] + command["delta"]
        if not 1 <= value <= 6:
            raise IllegalCommand("die_out_of_range")
        return [{**event, "die": command["die"], "delta": command["delta"]}]
    if half == "both":
        return [event, {"type": "placed", "seat": seat, "values": list(state.roll)}]
    return [event, {"type": "rolled", "seat": seat, "dice": _roll(rng)}]  # reroll


_DECIDERS = {
    "roll": _decide_roll,
    "shanghai": _decide_shanghai,
    "direction": _decide_direction,
    "place": _decide_place,
    "trick": _decide_trick,
}


def can_abort(state: GameState, *, legacy_abort: bool = False) -> bool:
    """Whether the game may be called off, without a result: never. A game is dealt as it
    starts, so both players have seen the tavern and who starts, and calling it off would
    throw away a deal one of them dislikes at no cost; leaving is resigning.

    ``legacy_abort``: the old rule, kept to check the records of games made under it
    (scheme hmac-sha256-v1, or no seeds at all): allowed until each player has moved."""
    if not legacy_abort:
        return False
    return not state.finished and not all(p.moved for p in state.players)


# Endings that come from outside the players' commands: the server's clock, a moderator.
SYSTEM_ENDINGS = ("timeout", "adjudicated", "annulled")


def end_game(state: GameState, reason: str, winner: int | None) -> list[Event]:
    """The events that end a game for a reason of the server's (``SYSTEM_ENDINGS``)."""
    if reason not in SYSTEM_ENDINGS:
        raise ValueError(f"unknown ending {reason!r}")
    if winner not in (None, *SEATS):
        raise ValueError("the winner is a seat or None")
    if state.finished:
        raise IllegalCommand("game_over")
    return [{"type": "game_ended", "reason": reason, "winner": winner}]


# -- what is allowed --------------------------------------------------------------------


def legal_commands(state: GameState, seat: int) -> list[Command]:
    """Every concrete command ``seat`` may send now (``decide`` accepts exactly these)."""
    if state.finished or seat not in SEATS:
        return []
    commands: list[Command] = []
    if state.turn == seat:
        player = state.players[seat]
        if state.phase == TURN:
            if player.supply >= 2:
                commands.append({"type": "roll"})
            if player.placed >= 2:
                commands.append({"type": "shanghai"})
        elif state.phase == DIRECTION:
            commands += [{"type": "direction", "one_at": end} for end in ("left", "right")]
        elif state.phase == PLACEMENT:
            commands += [{"type": "place", "die": die} for die in (0, 1)]
            if not player.trick_used:
                commands += _trick_commands(state, player)
    commands.append({"type": "resign"})
    return commands


def _trick_commands(state: GameState, player: Player) -> list[Command]:
    assert state.roll is not None
    held = [n for n in NATIONS if player.holds_nation(n)]
    commands: list[Command] = []
    for card_id in player.tricks:
        base = {"type": "trick", "card": card_id}
        commands += [{**base, "half": "wild", "nation": n} for n in held]
        action = CARDS[card_id].action
        if action == "adjust":
            commands += [
                {**base, "half": "adjust", "die": die, "delta": delta}
                for die in (0, 1)
                for delta in (1, -1)
                if 1 <= state.roll[die] + delta <= 6
            ]
        else:
            commands.append({**base, "half": action})
    return commands


# -- folding ----------------------------------------------------------------------------


def evolve(state: GameState | None, event: Event) -> GameState:
    """The state after ``event``. ``state`` is None only before ``game_started``."""
    kind = event["type"]
    if kind == "game_started":
        if state is not None:
            raise ValueError("game_started must be the first event")
        return _start(event)
    if state is None:
        raise ValueError(f"{kind} before game_started")
    try:
        fold = _FOLDERS[kind]
    except KeyError:
        raise ValueError(f"unknown event type {kind!r}") from None
    return fold(state, event)


def replay(events: Iterable[Event]) -> GameState:
    state = None
    for event in events:
        state = evolve(state, event)
    if state is None:
        raise ValueError("no events")
    return state


def _start(event: Event) -> GameState:
    deck = tuple(event["deck"])
    if sorted(deck) != sorted(BASE_DECK):
        raise ValueError("game_started holds a deck that is not the 48 tavern cards")
    extra_wild = bool(event["extra_wild"])
    players = tuple(Player(tricks=(EXTRA_WILD_IDS[seat],) if extra_wild else ()) for seat in SEATS)
    return GameState(
        extra_wild=extra_wild,
        deck=deck,
        tavern=(None,) * TAVERN_SIZE,
        round=0,
        start_player=event["first_player"],
        turn=None,
        phase=TURN,
        direction=None,
        roll=None,
        players=players,  # type: ignore[arg-type]
    )


# Each class's fields in order, and as a set: the searches of the bots fold millions of
# events, and ``dataclasses.replace`` spends more on finding the fields than on the copy.
_FIELDS = {cls: tuple(f.name for f in fields(cls)) for cls in (GameState, Player)}
_FIELD_SET = {cls: frozenset(names) for cls, names in _FIELDS.items()}


def _replace(obj: Any, **changes: Any) -> Any:
    """``dataclasses.replace`` for a ``GameState`` or a ``Player``: a copy with ``changes``."""
    cls = type(obj)
    if not _FIELD_SET[cls].issuperset(changes):
        raise TypeError(f"{cls.__name__} has no field {sorted(set(changes) - _FIELD_SET[cls])}")
    return cls(*[changes[name] if name in changes else getattr(obj, name) for name in _FIELDS[cls]])


def _with_player(state: GameState, seat: int, **changes: Any) -> tuple[Player, Player]:
    players = list(state.players)
    players[seat] = _replace(players[seat], **changes)
    return players[0], players[1]


def _fold_round_started(state: GameState, event: Event) -> GameState:
    tavern = state.deck[:TAVERN_SIZE]
    if list(tavern) != event["tavern"]:
        raise ValueError("round_started deals other cards than the top of the deck")
    return _replace(
        state,
        deck=state.deck[TAVERN_SIZE:],
        tavern=tavern,
        round=event["round"],
        start_player=event["start_player"],
        turn=event["start_player"],
        phase=TURN,
        direction=None,
        roll=None,
    )


def _fold_rolled(state: GameState, event: Event) -> GameState:
    seat = event["seat"]
    if not state.players[seat].moved:
        state = _replace(state, players=_with_player(state, seat, moved=True))
    return _replace(
        state,
        roll=(event["dice"][0], event["dice"][1]),
        phase=DIRECTION if state.direction is None else PLACEMENT,
    )


def _fold_direction_chosen(state: GameState, event: Event) -> GameState:
    return _replace(state, direction=event["one_at"], phase=PLACEMENT)


def _fold_placed(state: GameState, event: Event) -> GameState:
    seat = event["seat"]
    dice = list(state.players[seat].dice)
    for value in event["values"]:
        dice[state.index_of(value)] += 1
    return _replace(
        state,
        players=_with_player(state, seat, dice=tuple(dice)),
        roll=None,
        turn=other(seat),
        phase=TURN,
    )


def _fold_trick_played(state: GameState, event: Event) -> GameState:
    seat, card_id, half = event["seat"], event["card"], event["half"]
    player = state.players[seat]
    tricks = tuple(c for c in player.tricks if c != card_id)
    if half == "wild":
        wilds = (*player.wilds, (card_id, event["nation"]))
        players = _with_player(state, seat, tricks=tricks, trick_used=True, wilds=wilds)
        return _replace(state, players=players)
    players = _with_player(state, seat, tricks=tricks, trick_used=True)
    roll = state.roll
    if half == "adjust":
        assert roll is not None
        changed = list(roll)
        changed[event["die"]] += event["delta"]
        roll = (changed[0], changed[1])
    return _replace(state, players=players, roll=roll, discarded=(*state.discarded, card_id))


def _fold_shanghai_called(state: GameState, event: Event) -> GameState:
    report = distribute(state, event["seat"])
    won: list[list[str]] = [[], []]
    removed = []
    for outcome in report.cards:
        (removed if outcome.to is None else won[outcome.to]).append(outcome.card)
    players = []
    for seat, player in enumerate(state.players):
        sailors = tuple(c for c in won[seat] if CARDS[c].kind == "sailor")
        tricks = tuple(c for c in won[seat] if CARDS[c].kind == "trick")
        players.append(
            _replace(
                player,
                dice=(0,) * TAVERN_SIZE,
                sailors=player.sailors + sailors,
                tricks=player.tricks + tricks,
                trick_used=False,
            )
        )
    return _replace(
        state,
        tavern=(None,) * TAVERN_SIZE,
        turn=None,
        direction=None,
        roll=None,
        players=(players[0], players[1]),
        discarded=state.discarded + tuple(removed),
        last_round=report,
    )


def _fold_game_ended(state: GameState, event: Event) -> GameState:
    scores = score(state.players)
    winner = winner_of(scores) if event["reason"] == "completed" else event["winner"]
    return _replace(
        state,
        turn=None,
        phase=FINISHED,
        roll=None,
        result=Result(winner=winner, reason=event["reason"], scores=scores),
    )


_FOLDERS = {
    "round_started": _fold_round_started,
    "rolled": _fold_rolled,
    "direction_chosen": _fold_direction_chosen,
    "placed": _fold_placed,
    "trick_played": _fold_trick_played,
    "shanghai_called": _fold_shanghai_called,
    "game_ended": _fold_game_ended,
}


# -- invariants -------------------------------------------------------------------------


def card_locations(state: GameState) -> dict[str, str]:
    """Where each card is: "deck", "tavern", "sailors:0", "wild:1", "tricks:0", "discarded"."""
    places: list[tuple[str, Iterable[str]]] = [
        ("deck", state.deck),
        ("tavern", (c for c in state.tavern if c is not None)),
        ("discarded", state.discarded),
    ]
    for seat, player in enumerate(state.players):
        places += [
            (f"sailors:{seat}", player.sailors),
            (f"wild:{seat}", (c for c, _ in player.wilds)),
            (f"tricks:{seat}", player.tricks),
        ]
    where: dict[str, str] = {}
    for place, cards in places:
        for card_id in cards:
            if card_id in where:
                raise AssertionError(f"{card_id} is both in {where[card_id]} and {place}")
            where[card_id] = place
    missing = set(all_card_ids(state.extra_wild)) - set(where)
    if missing:
        raise AssertionError(f"cards lost: {sorted(missing)}")
    return where
