"""Events in words: "rolled 2 and 5", "used Die ±1: 5 → 4", "placed a 4"."""

from __future__ import annotations

from .rules import CARDS
from .text import ACTION_NAMES

REASONS = {
    "completed": "the eighth round ended",
    "resignation": "resigned",
}


def card_name(card_id: str) -> str:
    card = CARDS[card_id]
    if card.kind == "sailor":
        return f"{card.nation.title()} {card.value}"
    return f"trick card {card_id} ({ACTION_NAMES[card.action]})"


def describe_event(event: dict) -> str | None:
    """A short phrase for one event, None for events that need no words of their own."""
    kind = event["type"]
    if kind == "rolled":
        a, b = event["dice"]
        return f"rolled {a} and {b}"
    if kind == "direction_chosen":
        return f"put number 1 at the {event['one_at']} end"
    if kind == "placed":
        values = event["values"]
        if len(values) == 2:
            return f"placed the {values[0]} and the {values[1]}"
        return f"placed the {values[0]}"
    if kind == "trick_played":
        name = ACTION_NAMES[event["half"]]
        if event["half"] == "wild":
            return f"used {name}: a wild {event['nation'].title()} sailor"
        if event["half"] == "adjust":
            sign = "+1" if event["delta"] > 0 else "−1"
            return f"used {name} ({sign} on die {event['die'] + 1})"
        return f"used {name}"
    if kind == "shanghai_called":
        return "called Shanghai!"
    if kind == "game_ended":
        return "resigned" if event["reason"] == "resignation" else None
    return None  # game_started, round_started: the board shows them


def describe_events(events: list[dict]) -> str:
    """One player's command in words, e.g. "rolled 2 and 5, used Roll again, rolled 6 and 6"."""
    phrases = [p for p in (describe_event(e) for e in events) if p]
    return ", ".join(phrases)


def event_line(event: dict, names: dict) -> str | None:
    """One event as a sentence with the players' names; None for a silent one.

    ``names`` maps a seat to a name. Round starts and the ending get a line of their own.
    """
    kind = event["type"]
    if kind == "round_started":
        return f"Round {event['round']} starts; {names.get(event['start_player'], '?')} begins"
    if kind == "game_started":
        return "Game created" + (" with the extra wild card" if event["extra_wild"] else "")
    if kind == "game_ended":
        return _ending(event, names)
    phrase = describe_event(event)
    if phrase is None:
        return None
    return f"{names.get(event.get('seat'), '?')} {phrase}"


def _ending(event: dict, names: dict) -> str:
    reason, winner = event["reason"], event.get("winner")
    who = names.get(winner, "?") if winner is not None else None
    loser = names.get(1 - winner, "?") if winner is not None else None
    if reason == "completed":
        return "The eighth round is over: the game ends"
    if reason == "resignation":
        return f"{loser} resigned: {who} wins"
    if reason == "timeout":
        return f"{loser} ran out of time: {who} wins"
    if reason == "adjudicated":
        return f"A moderator awarded the game to {who}"
    if reason == "annulled":
        return "A moderator annulled the game: no result"
    if reason == "aborted":
        return f"{names.get(event.get('seat'), '?')} aborted the game: no result"
    return f"The game ended ({reason})" + (f": {who} wins" if who else "")


def timeline(game) -> list[dict]:
    """The whole log in words, for moderators: one line per event that says something."""
    names = {s.seat: s.user.username for s in game.seats.select_related("user")}
    lines, round_no = [], 0
    for event in game.events.order_by("seq"):
        data = event.as_rules_event()
        if data["type"] == "round_started":
            round_no = data["round"]
        text = event_line(data, names)
        if text is not None:
            lines.append(
                {"seq": event.seq, "round": round_no, "text": text, "at": event.created_at}
            )
    return lines
