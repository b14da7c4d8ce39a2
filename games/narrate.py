"""A game's whole log in words, for moderators (the words themselves are in games.words)."""

from __future__ import annotations

from .words import event_line


def timeline(game) -> list[dict]:
    """One line per event that says something, with its round."""
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
