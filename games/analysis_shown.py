"""The analysis after the game as the replay page shows it: a chart of each player's
chance to win over the game, the figures round by round, and the costliest decisions
in words. The estimates are the worker's (``services.analysis``); this only reads them.

A game still under way shows no analysis (the captain's advice is not for a game being
played); an aborted or annulled game has none.
"""

from __future__ import annotations

from django.utils.html import conditional_escape, format_html
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from .models import Game, GameAnalysis
from .words import describe_command

COSTLY = 5  # the costliest decisions told in words
THRESHOLD = 0.05  # a decision that cost less of the chance to win is not among them

# The chart's box (SVG user units): room at the left for the percentages, below for
# the round numbers.
WIDTH, HEIGHT = 640, 240
LEFT, RIGHT, TOP, BOTTOM = 60, 12, 12, 30
GRID = (0, 0.25, 0.5, 0.75, 1)  # the chances a line is drawn at (0, half and 1 labelled)


def percent(chance: float) -> str:
    return pgettext("a chance to win, in percent", "%(percent)s%%") % {
        "percent": round(chance * 100)
    }


def _name(name: str):
    return format_html('<span class="player-name" title="{}">{}</span>', name, name)


def _sentence(text: str, **parts) -> str:
    """``text`` (already translated) with its %-named parts put in, escaped as HTML."""
    escaped = {key: conditional_escape(value) for key, value in parts.items()}
    return mark_safe(conditional_escape(text) % escaped)


def replay_analysis(game: Game, side: int, names: dict) -> dict | None:
    """What the replay of ``game`` seen from ``side`` shows of its analysis.

    ``names`` maps a seat to its player's name. None for a game under way; otherwise a
    dict whose ``state`` is "unavailable", "pending", "failed", "empty" or "ready".
    """
    if game.status == Game.Status.ACTIVE:
        return None
    if game.status != Game.Status.FINISHED:
        if game.status == Game.Status.ABORTED:
            why = _("An aborted game is not analysed.")
        else:
            why = _("An annulled game is not analysed.")
        return {"state": "unavailable", "message": why}
    row = GameAnalysis.objects.filter(game=game).first()
    if row is None or row.status == GameAnalysis.Status.PENDING:
        done, total = (row.done, row.total) if row else (0, 0)
        return {"state": "pending", "done": done, "total": total}
    if row.status == GameAnalysis.Status.FAILED:
        return {"state": "failed"}
    if not row.decisions:
        return {"state": "empty"}
    return {"state": "ready", **_ready(game, row.decisions, side, names)}


def _ready(game: Game, entries: list[dict], side: int, names: dict) -> dict:
    last = max(game.version, entries[-1]["step"], 2)
    span_x = WIDTH - LEFT - RIGHT
    span_y = HEIGHT - TOP - BOTTOM

    def x(step: float) -> float:
        return round(LEFT + (step - 1) / (last - 1) * span_x, 1)

    def y(chance: float) -> float:
        return round(TOP + (1 - chance) * span_y, 1)

    def mine(entry: dict) -> float:
        """The chance of ``side`` after the decision, whoever made it."""
        return entry["after"] if entry["seat"] == side else _other(entry["after"])

    me = [(x(e["step"]), y(mine(e))) for e in entries]
    them = [(x(e["step"]), y(_other(mine(e)))) for e in entries]

    rounds = list(
        game.events.filter(kind="round_started").order_by("seq").values_list("seq", "payload")
    )
    ticks = []
    for i, (seq, payload) in enumerate(rounds):
        end = rounds[i + 1][0] if i + 1 < len(rounds) else last
        ticks.append({"x": x(seq), "label_x": x((seq + end) / 2), "round": payload["round"]})

    costly = sorted(
        sorted((e for e in entries if e["loss"] >= THRESHOLD), key=lambda e: -e["loss"])[:COSTLY],
        key=lambda e: e["step"],
    )
    marks, told = [], []
    for number, entry in enumerate(costly, start=1):
        by_me = entry["seat"] == side
        marks.append(
            {
                "number": number,
                "x": x(entry["step"]),
                "y": y(entry["after"]),  # on the mover's own line
                "who": "me" if by_me else "opponent",
            }
        )
        told.append({**_told(entry, names), "number": number, "who": marks[-1]["who"]})

    by_round = {}
    for entry in entries:
        by_round[entry["round"]] = mine(entry)
    table = [
        {"round": r, "me": percent(chance), "opponent": percent(_other(chance))}
        for r, chance in sorted(by_round.items())
    ]
    end = mine(entries[-1])
    grid = [{"y": y(c), "label": percent(c), "labelled": c in (0, 0.5, 1)} for c in GRID]
    return {
        "players": {"me": names[side], "opponent": names[1 - side]},
        "width": WIDTH,
        "height": HEIGHT,
        "left": LEFT,
        "right": WIDTH - RIGHT,
        "top": TOP,
        "bottom": HEIGHT - BOTTOM,
        "axis_y": HEIGHT - 8,
        "me_points": " ".join(f"{px:g},{py:g}" for px, py in me),
        "opponent_points": " ".join(f"{px:g},{py:g}" for px, py in them),
        "grid": grid,
        "ticks": ticks,
        "marks": marks,
        "costly": told,
        "threshold": percent(THRESHOLD),
        "table": table,
        "final": {"me": percent(end), "opponent": percent(_other(end))},
        "analysed": len(entries),
    }


def _other(chance: float) -> float:
    """The other player's chance (rounded as stored, so that either side draws the same)."""
    return round(1 - chance, 4)


def _told(entry: dict, names: dict) -> dict:
    """One costly decision in words: who played what, the chance before and after, and
    what the captain would have played."""
    roll = entry.get("roll")
    played = describe_command(entry["played"], roll)
    best = describe_command(entry["best"], roll)
    what = _sentence(
        _("%(name)s played “%(played)s”: chance to win %(before)s → %(after)s."),
        name=_name(names[entry["seat"]]),
        played=played,
        before=percent(entry["before"]),
        after=percent(entry["after"]),
    )
    instead = _("The captain would have played “%(best)s”.") % {"best": best}
    return {"round": entry["round"], "step": entry["step"], "what": what, "instead": instead}
