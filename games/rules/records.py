"""Checking an exported game record against the rules, without any server.

``GET /api/games/<id>/export/`` gives a finished game's whole event log and the result
the server recorded. ``check_record(record)`` replays the events with this engine alone
and compares: the same winner, reason and scores, and an unbroken sequence of events.

From the command line (prints the result, exits 1 on a mismatch)::

    python -m games.rules.records game-42.json
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass

from .engine import replay


@dataclass(frozen=True)
class Check:
    ok: bool
    problems: tuple[str, ...]
    replayed: dict  # the result the events lead to: reason, winner (a seat or None), scores


def check_record(record: dict) -> Check:
    """Replay ``record["events"]`` and compare the outcome with ``record["result"]``."""
    problems = []
    entries = record.get("events") or []
    seqs = [entry.get("seq") for entry in entries]
    if seqs != list(range(1, len(entries) + 1)):
        problems.append("the events are not numbered 1, 2, 3, … without gaps")
    try:
        state = replay(entry["event"] for entry in entries)
    except (KeyError, TypeError, ValueError) as error:
        return Check(False, (*problems, f"the events do not replay: {error}"), {})
    result = state.result
    if result is None:
        return Check(False, (*problems, "the events do not reach the end of the game"), {})
    replayed = {
        "reason": result.reason,
        "winner": result.winner,
        "scores": [s.total for s in result.scores],
    }
    recorded = record.get("result") or {}
    for key, value in replayed.items():
        if recorded.get(key) != value:
            problems.append(f"{key}: recorded {recorded.get(key)!r}, replayed {value!r}")
    if record.get("extra_wild") is not None and record["extra_wild"] != state.extra_wild:
        problems.append("the variant differs from the game's first event")
    return Check(not problems, tuple(problems), replayed)


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m games.rules.records <exported-game.json>", file=sys.stderr)
        return 2
    with open(argv[0], encoding="utf-8") as handle:
        check = check_record(json.load(handle))
    r = check.replayed
    if r:
        winner = "a draw" if r["winner"] is None else f"seat {r['winner']} wins"
        print(f"replayed: {r['reason']}, {winner}, {r['scores'][0]} : {r['scores'][1]}")
    for problem in check.problems:
        print(f"mismatch: {problem}")
    print("the record is consistent" if check.ok else "the record does NOT match its events")
    return 0 if check.ok else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
