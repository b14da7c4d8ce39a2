"""Commands in words, for buttons and messages."""

from __future__ import annotations

ACTION_NAMES = {
    "adjust": "Die ±1",
    "both": "Add both dice",
    "reroll": "Roll again",
    "wild": "2 Sailors",
}


def describe_command(command: dict, roll: list[int] | None = None) -> str:
    kind = command["type"]
    if kind == "roll":
        return "Roll the dice"
    if kind == "shanghai":
        return "Shanghai!"
    if kind == "resign":
        return "Resign"
    if kind == "abort":
        return "Abort (no result)"
    if kind == "direction":
        return f"Number 1 at the {command['one_at']} end"
    if kind == "place":
        if roll:
            return f"Place the {roll[command['die']]}"
        return f"Place die {command['die'] + 1}"
    half = command.get("half")
    name = ACTION_NAMES.get(half, half)
    card = command.get("card")
    prefix = f"{card}: {name}" if card else name
    if half == "wild" and "nation" in command:
        return f"{prefix} as a {command['nation'].title()} sailor"
    if half == "adjust" and "die" in command:
        sign = "+1" if command["delta"] > 0 else "−1"
        if roll:
            before = roll[command["die"]]
            return f"{prefix}: {before} → {before + command['delta']}"
        return f"{prefix}: die {command['die'] + 1} {sign}"
    return prefix
