"""Engine benchmark: random full games on one core.

    python bench/engine_speed.py [--games N] [--seed S]

Prints games per second and microseconds per command, for both variants. A command
here is one ``decide`` plus the ``evolve`` of its events; the random player's choice
(``legal_commands``) is timed apart, and so is a ``player_view`` after every command,
which is what the server builds for each player after each move.

Then the seeds' stream (``games.rules.fairness``) under each scheme: what the draws of
one game cost — the shuffle, the first player and 120 dice, about a game's worth — from
seeds of 32 characters, as the browsers send.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import platform
import random
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from games.rules import decide, evolve, fairness, new_game, player_view, random_command  # noqa: E402
from games.rules.cards import DECK  # noqa: E402

STREAM_DICE = 120  # about a game's dice


def play(rng: random.Random, extra_wild: bool, clock=time.perf_counter) -> dict:
    spent = {"engine": 0.0, "choose": 0.0, "view": 0.0}
    state, _ = new_game(rng, extra_wild=extra_wild)
    commands = 0
    while not state.finished:
        seat = state.turn
        t0 = clock()
        command = random_command(state, seat, rng)
        t1 = clock()
        for event in decide(state, seat, command, rng):
            state = evolve(state, event)
        t2 = clock()
        player_view(state, seat)
        t3 = clock()
        spent["choose"] += t1 - t0
        spent["engine"] += t2 - t1
        spent["view"] += t3 - t2
        commands += 1
    return {"commands": commands, **spent}


def run(games: int, seed: int, extra_wild: bool) -> dict:
    rng = random.Random(seed)
    totals = {"commands": 0, "engine": 0.0, "choose": 0.0, "view": 0.0}
    started = time.perf_counter()
    for _ in range(games):
        for key, value in play(rng, extra_wild).items():
            totals[key] += value
    wall = time.perf_counter() - started
    n = totals["commands"]
    return {
        "variant": "extra wild" if extra_wild else "plain",
        "games": games,
        "commands": n,
        "commands_per_game": round(n / games, 1),
        "games_per_s": round(games / wall, 1),
        "games_per_s_engine_only": round(games / totals["engine"], 1),
        "us_per_command": round(totals["engine"] / n * 1e6, 2),
        "us_per_choice": round(totals["choose"] / n * 1e6, 2),
        "us_per_view": round(totals["view"] / n * 1e6, 2),
    }


def stream_cost(scheme: str, games: int) -> dict:
    """Microseconds for one game's draws from its seeds' stream under ``scheme``."""
    rng = random.Random(7)
    seeds = [(rng.randbytes(16).hex(), rng.randbytes(16).hex()) for _ in range(games)]
    keys = [rng.randbytes(32) for _ in range(games)]
    started = time.perf_counter()
    for key, pair in zip(keys, seeds, strict=True):
        fairness.derive(key, pair, list(DECK), STREAM_DICE, scheme=scheme)
    wall = time.perf_counter() - started
    return {"scheme": scheme, "games": games, "us_per_game": round(wall / games * 1e6, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", default="bench/results/engine.json")
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core
    rows = [run(args.games, args.seed, extra) for extra in (False, True)]
    print(f"Python {platform.python_version()} on {platform.machine()}, one core")
    header = (
        f"{'variant':<11} {'games':>6} {'cmd/game':>8} {'games/s':>8} "
        f"{'engine games/s':>14} {'us/command':>10} {'us/choice':>9} {'us/view':>8}"
    )
    print(header)
    for r in rows:
        print(
            f"{r['variant']:<11} {r['games']:>6} {r['commands_per_game']:>8} "
            f"{r['games_per_s']:>8} {r['games_per_s_engine_only']:>14} "
            f"{r['us_per_command']:>10} {r['us_per_choice']:>9} {r['us_per_view']:>8}"
        )
    streams = [stream_cost(scheme, args.games) for scheme in fairness.SCHEMES]
    print(f"the seeds' stream, one game's draws (shuffle, first player, {STREAM_DICE} dice):")
    for r in streams:
        print(f"  {r['scheme']:<16} {r['us_per_game']:>8} us a game")
    out = pathlib.Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    body = {"python": platform.python_version(), "rows": rows, "streams": streams}
    out.write_text(json.dumps(body, indent=2))
    print(f"written to {out}")


if __name__ == "__main__":
    main()
