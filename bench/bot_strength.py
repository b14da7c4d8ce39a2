"""The bots' strength: every level against a random player, a greedy one and each other.

    python bench/bot_strength.py [--games N] [--processes P] [--seed S] [--only LEVEL] [--json FILE]

Each pairing plays N games (default 1,000), seats alternated, half of them with the
extra-wild-card variant, spread over P processes (default: every core). It prints each
pairing's win rate with its 95% interval (Wilson; a draw counts half a win) and the
time per decision of each side (average and longest), on this machine; the captain
must take at most 200 ms on average and 1 s at most. ``docs/bots.md`` holds the table.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import os
import pathlib
import platform
import random
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from games.bots import choose  # noqa: E402
from games.rules import decide, evolve, new_game  # noqa: E402

PAIRINGS = (
    ("deckhand", "random"),
    ("deckhand", "greedy"),
    ("boatswain", "random"),
    ("boatswain", "greedy"),
    ("boatswain", "deckhand"),
    ("captain", "random"),
    ("captain", "greedy"),
    ("captain", "deckhand"),
    ("captain", "boatswain"),
)
# The win rates each level should reach; "each level beats the one below it" means more
# than half, with the whole 95% interval above one half.
TARGETS = {
    ("captain", "random"): 0.95,
    ("captain", "greedy"): 0.75,
    ("captain", "boatswain"): 0.65,
    ("boatswain", "deckhand"): 0.5,
    ("deckhand", "random"): 0.5,
}
# The captain's time per decision on one core: at most this on average, and this at most.
CAPTAIN_MEAN_MS, CAPTAIN_LONGEST_MS = 200, 1000


def play(job):
    """One game: (points for the first level: 1, ½ or 0; its decisions' seconds, count,
    longest; the second level's)."""
    first, second, seed = job
    rng = random.Random(seed)
    state, _ = new_game(rng, extra_wild=seed % 4 >= 2)
    seats = (first, second) if seed % 2 == 0 else (second, first)
    spent, counts, longest = [0.0, 0.0], [0, 0], [0.0, 0.0]
    while not state.finished:
        seat = state.turn
        start = time.process_time()
        command = choose(state, seat, seats[seat], rng)
        took = time.process_time() - start
        spent[seat] += took
        counts[seat] += 1
        longest[seat] = max(longest[seat], took)
        for event in decide(state, seat, command, rng):
            state = evolve(state, event)
    mine = 0 if seed % 2 == 0 else 1
    winner = state.result.winner
    points = 0.5 if winner is None else float(winner == mine)
    other = 1 - mine
    sides = (spent[mine], counts[mine], longest[mine], spent[other], counts[other], longest[other])
    return (points, *sides)


def cpu_name() -> str:
    try:
        for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--processes", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--seed", type=int, default=20261124)
    parser.add_argument("--only", help="only the pairings with this level")
    parser.add_argument("--json", help="also write the results to this file")
    args = parser.parse_args()
    pairings = [p for p in PAIRINGS if not args.only or args.only in p]
    print(
        f"{cpu_name()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}; {args.games} games per pairing, "
        f"{args.processes} processes"
    )
    print(
        f"{'pairing':<24} {'wins':>6} {'95% interval':>15} {'ms/decision':>20} "
        f"{'longest ms':>16}  target"
    )
    results, missed = [], []
    with multiprocessing.Pool(args.processes) as pool:
        for first, second in pairings:
            jobs = [(first, second, args.seed + i) for i in range(args.games)]
            start = time.perf_counter()
            games = pool.map(play, jobs, chunksize=8)
            wall = time.perf_counter() - start
            wins = sum(g[0] for g in games)
            low, high = wilson(wins, len(games))
            ms = [
                1000 * sum(g[1 + 3 * k] for g in games) / max(1, sum(g[2 + 3 * k] for g in games))
                for k in (0, 1)
            ]
            longest = [1000 * max(g[3 + 3 * k] for g in games) for k in (0, 1)]
            target = TARGETS.get((first, second))
            if target is None:
                met = None
            else:
                met = low > target if target == 0.5 else wins / len(games) >= target
            if met is False:
                missed.append(f"{first} vs {second}")
            for level, mean, most in zip((first, second), ms, longest, strict=True):
                if level == "captain" and (mean > CAPTAIN_MEAN_MS or most > CAPTAIN_LONGEST_MS):
                    missed.append(f"the captain's time in {first} vs {second}")
            verdict = "—" if met is None else f"≥{target:.0%} {'met' if met else 'MISSED'}"
            rate = wins / len(games)
            print(
                f"{first + ' vs ' + second:<24} {rate:>6.1%} {f'{low:.1%}–{high:.1%}':>15} "
                f"{ms[0]:>9.2f} / {ms[1]:>7.2f} {longest[0]:>7.0f} / {longest[1]:>5.0f}  {verdict}"
                f"  ({wall:.0f} s)",
                flush=True,
            )
            results.append(
                {
                    "first": first,
                    "second": second,
                    "games": len(games),
                    "win_rate": rate,
                    "interval": [low, high],
                    "ms_per_decision": ms,
                    "longest_ms": longest,
                    "target": target,
                    "met": met,
                }
            )
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(results, indent=2))
    if missed:
        print("targets missed: " + ", ".join(missed))
        return 1
    print("every target met")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
