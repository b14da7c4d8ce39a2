"""The analysis after the game as the replay page shows it: a chart of each player's
chance to win over the game, the figures round by round, and the costliest decisions
in words, each with how sure the estimate is. The estimates are the worker's
(``services.analysis``); this only reads them. The words name the level whose judgement
the analysis holds (``GameAnalysis.engine``): the captain's, or the admiral's.

A decision is among the costly ones when it lost ``THRESHOLD`` of the chance to win or
more and, where the entry has its ``margin`` (the half-width of the loss's 95% interval),
the interval leaves out no loss at all (``loss - margin > 0``). The entries stored before
the margins keep the old rule and show no ±.

A game still under way shows no analysis (a computer opponent's advice is not for a game
being played); an aborted or annulled game has none.
"""

from __future__ import annotations

from django.utils.html import conditional_escape, format_html
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import ngettext, pgettext

from .bots import hindsight
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


def points(chance: float) -> int:
    """A chance (0..1) as whole points of percentage."""
    return round(chance * 100)


def engine_words(engine: str) -> dict:
    """The sentences that name the level whose judgement an analysis holds, in the active
    language. Whole sentences, one set a level, so that each language gives the level
    its own article and case. Every engine an analysis was stored by has its set: the
    captain (the rows from before the field) and the admiral."""
    if engine == "admiral":
        return {
            "heading": _("The admiral’s analysis"),
            "about": _(
                "After each decision, the admiral (the strongest computer opponent) played "
                "the rest of the round out many times over to estimate each player’s chance "
                "to win."
            ),
            "desc": _(
                "Each player’s chance to win after each decision, round by round, as the "
                "admiral estimates it: %(me)s in red, %(opponent)s in blue. After the last "
                "decision: %(me)s %(end_me)s, %(opponent)s %(end_opponent)s. Numbered "
                "circles mark the costliest decisions, told below the chart."
            ),
            "caption": _(
                "Each player’s chance to win after their last decision in each round, as "
                "the admiral estimates it"
            ),
            "instead": _("The admiral would have played “%(best)s”."),
        }
    return {
        "heading": _("The captain’s analysis"),
        "about": _(
            "After each decision, the captain (a computer opponent) played the rest of the "
            "round out many times over to estimate each player’s chance to win."
        ),
        "desc": _(
            "Each player’s chance to win after each decision, round by round, as the "
            "captain estimates it: %(me)s in red, %(opponent)s in blue. After the last "
            "decision: %(me)s %(end_me)s, %(opponent)s %(end_opponent)s. Numbered circles "
            "mark the costliest decisions, told below the chart."
        ),
        "caption": _(
            "Each player’s chance to win after their last decision in each round, as the "
            "captain estimates it"
        ),
        "instead": _("The captain would have played “%(best)s”."),
    }


def costly(entry: dict) -> bool:
    """Whether a decision lost enough of the chance to win, and surely so, to be told:
    ``THRESHOLD`` or more, and (where the entry has its margin) an interval that leaves
    out no loss at all."""
    if entry["loss"] < THRESHOLD:
        return False
    return "margin" not in entry or entry["loss"] - entry["margin"] > 0


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
    today = engine_words(hindsight.ENGINE)  # the engine of any analysis still to come
    if game.status != Game.Status.FINISHED:
        if game.status == Game.Status.ABORTED:
            why = _("An aborted game is not analysed.")
        else:
            why = _("An annulled game is not analysed.")
        return {"state": "unavailable", "message": why, "words": today}
    row = GameAnalysis.objects.filter(game=game).first()
    if row is None or row.status == GameAnalysis.Status.PENDING:
        # a pending row of another engine starts over with today's (services.analysis)
        done, total = (
            (0, 0) if row is None or row.engine != hindsight.ENGINE else (row.done, row.total)
        )
        return {"state": "pending", "done": done, "total": total, "words": today}
    words = engine_words(row.engine)
    if row.status == GameAnalysis.Status.FAILED:
        return {"state": "failed", "words": words}
    if not row.decisions:
        return {"state": "empty", "words": words}
    return {"state": "ready", "words": words, **_ready(game, row.decisions, side, names, words)}


def _ready(game: Game, entries: list[dict], side: int, names: dict, words: dict) -> dict:
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

    costliest = sorted(
        sorted((e for e in entries if costly(e)), key=lambda e: -e["loss"])[:COSTLY],
        key=lambda e: e["step"],
    )
    marks, told = [], []
    for number, entry in enumerate(costliest, start=1):
        by_me = entry["seat"] == side
        marks.append(
            {
                "number": number,
                "x": x(entry["step"]),
                "y": y(entry["after"]),  # on the mover's own line
                "who": "me" if by_me else "opponent",
            }
        )
        told.append({**_told(entry, names, words), "number": number, "who": marks[-1]["who"]})

    by_round = {}
    for entry in entries:
        by_round[entry["round"]] = mine(entry)
    table = [
        {"round": r, "me": percent(chance), "opponent": percent(_other(chance))}
        for r, chance in sorted(by_round.items())
    ]
    end = mine(entries[-1])
    me_name, opponent_name = names[side], names[1 - side]
    desc = _sentence(
        words["desc"],
        me=me_name,
        opponent=opponent_name,
        end_me=percent(end),
        end_opponent=percent(_other(end)),
    )
    grid = [{"y": y(c), "label": percent(c), "labelled": c in (0, 0.5, 1)} for c in GRID]
    return {
        "players": {"me": me_name, "opponent": opponent_name},
        "desc": desc,
        "margins": any("margin" in e for e in entries),
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
        "threshold_points": points(THRESHOLD),
        "table": table,
        "final": {"me": percent(end), "opponent": percent(_other(end))},
        "analysed": len(entries),
    }


def _other(chance: float) -> float:
    """The other player's chance (rounded as stored, so that either side draws the same)."""
    return round(1 - chance, 4)


def _told(entry: dict, names: dict, words: dict) -> dict:
    """One costly decision in words: who played what, the chance before and after (with
    the points lost and their margin, where the entry has it), and what the engine would
    have played."""
    roll = entry.get("roll")
    played = describe_command(entry["played"], roll)
    best = describe_command(entry["best"], roll)
    parts = {
        "name": _name(names[entry["seat"]]),
        "played": played,
        "before": percent(entry["before"]),
        "after": percent(entry["after"]),
    }
    if "margin" in entry:
        # the points as the reader subtracts them from the two figures shown
        lost = points(entry["before"]) - points(entry["after"])
        text = ngettext(
            "%(name)s played “%(played)s”: chance to win %(before)s → %(after)s, "
            "%(lost)s point lost (± %(margin)s).",
            "%(name)s played “%(played)s”: chance to win %(before)s → %(after)s, "
            "%(lost)s points lost (± %(margin)s).",
            lost,
        )
        text = text.replace("± ", "±\xa0")  # the sign stays with its number at a line's end
        what = _sentence(text, lost=lost, margin=points(entry["margin"]), **parts)
    else:  # stored before the margins
        what = _sentence(
            _("%(name)s played “%(played)s”: chance to win %(before)s → %(after)s."), **parts
        )
    instead = words["instead"] % {"best": best}
    return {"round": entry["round"], "step": entry["step"], "what": what, "instead": instead}
