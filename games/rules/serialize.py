"""The state as plain JSON and back, for storing a snapshot beside the event log.

The snapshot holds the deck order: it is a server secret, never a player's view.
"""

from __future__ import annotations

from dataclasses import fields, is_dataclass
from typing import Any

from .state import CardOutcome, GameState, Player, Result, RoundReport, Score


def state_to_json(state: GameState) -> dict[str, Any]:
    """The state as JSON values: dataclasses as objects, tuples as lists (what a JSON
    round trip gives back; ``dataclasses.asdict`` copied every value and cost a move
    more than the rest of its rules)."""
    return _plain(state)


def _plain(value: Any) -> Any:
    if isinstance(value, (tuple, list)):
        return [_plain(item) for item in value]
    if is_dataclass(value):
        return {f.name: _plain(getattr(value, f.name)) for f in _fields(type(value))}
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    return value


_FIELDS: dict[type, tuple] = {}


def _fields(cls: type) -> tuple:
    known = _FIELDS.get(cls)
    if known is None:
        known = _FIELDS[cls] = fields(cls)
    return known


def _pair(value: Any) -> tuple | None:
    return None if value is None else tuple(value)


def _player(data: dict) -> Player:
    return Player(
        dice=tuple(data["dice"]),
        sailors=tuple(data["sailors"]),
        wilds=tuple((card, nation) for card, nation in data["wilds"]),
        tricks=tuple(data["tricks"]),
        trick_used=data["trick_used"],
        moved=data.get("moved", False),
    )


def _report(data: dict | None) -> RoundReport | None:
    if data is None:
        return None
    cards = tuple(
        CardOutcome(
            card=c["card"],
            dice=tuple(c["dice"]),
            number=c["number"],
            neighbours=_pair(c["neighbours"]),
            to=c["to"],
            reason=c["reason"],
        )
        for c in data["cards"]
    )
    return RoundReport(data["round"], data["called_by"], data["direction"], cards)


def _score(data: dict) -> Score:
    by_nation = tuple((nation, points) for nation, points in data["by_nation"])
    return Score(total=data["total"], by_nation=by_nation, tricks=data["tricks"])


def _result(data: dict | None) -> Result | None:
    if data is None:
        return None
    scores = (_score(data["scores"][0]), _score(data["scores"][1]))
    return Result(winner=data["winner"], reason=data["reason"], scores=scores)


def state_from_json(data: dict[str, Any]) -> GameState:
    return GameState(
        extra_wild=data["extra_wild"],
        deck=tuple(data["deck"]),
        tavern=tuple(data["tavern"]),
        round=data["round"],
        start_player=data["start_player"],
        turn=data["turn"],
        phase=data["phase"],
        direction=data["direction"],
        roll=_pair(data["roll"]),  # type: ignore[arg-type]
        players=(_player(data["players"][0]), _player(data["players"][1])),
        discarded=tuple(data["discarded"]),
        last_round=_report(data["last_round"]),
        result=_result(data["result"]),
    )
