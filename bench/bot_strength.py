"""The bots' strength: pairings of players, and a ladder of ratings fitted to them all.

    python bench/bot_strength.py [--games N] [--processes P] [--seed S] [--only NAME]
        [--pairings "a:b,c:d"] [--json FILE] [--merge FILE ...] [--markdown]

A player is named by a spec: a level (``games.bots.LEVELS``), a baseline
(``games.bots.BASELINES``), ``rival`` (``bench/rival.py``, a Monte-Carlo player built
apart from the bots) or one of the fast policies the searches play out with (``judged``,
``judged_start``, ``keen``: ``games.bots.policies``), with ``@N`` for the admiral's or the rival's
playouts ("admiral@100", "rival@500").

The default pairings (``default_pairings``): every level below the admiral against
random, greedy, the rival and each level below it; the rival against random and greedy;
the admiral against the captain, the rival and the boatswain; and the admiral's
time-budget curve, at three fractions of its default playouts, against the captain.
All of them at 1,000 games take about seven hours on two cores (the admiral's games
most of it); ``--pairings`` and ``--merge`` build the ladder over several runs. Each
pairing plays N games (default 1,000) in pairs with the same deal, start seat, variant
and throws of each seat's dice, the players in swapped seats (``play``); half of the
pairs with the extra-wild-card variant; spread over P processes (default: every core).

Per pairing it prints the first player's win rate with its 95% interval (Wilson; a draw
counts half a win), the games, the wall time, and per side the CPU time of a decision
(median, 99th percentile and longest) counting only decisions with a choice (more than
one command other than resigning; a forced move costs nothing). Then the ladder: a
Bradley-Terry (Elo-scale) maximum-likelihood fit of every player's rating from all
pairings, anchored at random = 0, each with a 95% interval from the Fisher information.
``--merge`` folds in the pairings of earlier runs' ``--json`` files that this run did not
play (a pairing in several files: the last file's), so the ladder can be built over
several runs; those files are kept in ``bench/ladder/``. The bench exits 1 when a target is
missed. ``docs/bots.md`` holds the tables (``--markdown`` prints them ready to paste).
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

from bench import rival  # noqa: E402
from games.bots import BASELINES, LEVELS, choose, unseen  # noqa: E402
from games.bots.admiral import PLAYOUTS as ADMIRAL_PLAYOUTS  # noqa: E402
from games.bots.players import playable  # noqa: E402
from games.bots.policies import judged, judged_start, keen  # noqa: E402
from games.rules import decide, evolve, legal_commands, new_game  # noqa: E402

RIVAL = "rival"
# The fast one-move policies the searches play their playouts by, as players of their own.
POLICIES = {"judged": judged, "judged_start": judged_start, "keen": keen}
NAMES = (*LEVELS, *BASELINES, RIVAL, *POLICIES)
# Players whose work per decision an "@N" sets.
BUDGETED = ("admiral", RIVAL)
ANCHOR = "random"
# The admiral's time-budget curve: these fractions of its default playouts.
CURVE_FRACTIONS = (0.1, 0.25, 0.5)

# Win rates to reach: a float is a floor for the win rate itself; ("above", x) means the
# whole 95% interval above x.
TARGETS = {
    ("admiral", "captain"): ("above", 0.55),
    ("admiral", RIVAL): ("above", 0.55),
    ("captain", "random"): 0.95,
    ("captain", "greedy"): 0.75,
    ("captain", "boatswain"): 0.65,
    ("boatswain", "deckhand"): ("above", 0.5),
    ("deckhand", "random"): ("above", 0.5),
}
# Decision times (ms of CPU, decisions with a choice): the admiral's median and 99th
# percentile; the captain's average and longest.
ADMIRAL_MEDIAN_MS, ADMIRAL_P99_MS = 250, 600
CAPTAIN_MEAN_MS, CAPTAIN_LONGEST_MS = 200, 1000


# -- players ----------------------------------------------------------------------------


def parse_spec(spec: str) -> tuple[str, int | None]:
    """("admiral", 200) for "admiral@200"; ValueError for an unknown name or budget."""
    name, at, budget = spec.strip().partition("@")
    if name not in NAMES:
        raise ValueError(f"unknown player {name!r}: one of {', '.join(NAMES)}")
    if not at:
        return name, None
    if name not in BUDGETED:
        raise ValueError(f"{name!r} takes no budget: only {' and '.join(BUDGETED)} do")
    if not budget.isdigit() or int(budget) < 1:
        raise ValueError(f"the budget in {spec!r} is not a positive whole number")
    return name, int(budget)


def player(spec: str):
    """A function (state, seat, rng) -> command for the spec."""
    name, budget = parse_spec(spec)
    if name in POLICIES:
        return lambda state, seat, rng: by_policy(POLICIES[name], state, seat, rng)
    if name == RIVAL:
        playouts = rival.PLAYOUTS if budget is None else budget
        return lambda state, seat, rng: rival.choose(state, seat, rng, playouts=playouts)
    if budget is None:
        return lambda state, seat, rng: choose(state, seat, name, rng)
    return lambda state, seat, rng: choose(state, seat, name, rng, playouts=budget)


def by_policy(policy, state, seat: int, rng) -> dict:
    """The command ``policy`` plays, seeing what a bot sees (``games.bots.unseen``)."""
    state = unseen(state, rng)
    commands = playable(state, seat)
    return commands[0] if len(commands) == 1 else policy(state, seat, commands, rng)


def default_pairings() -> list[tuple[str, str]]:
    """Every level below the admiral against random, greedy, the rival and each level
    below it; the rival against random and greedy; the admiral, whose games cost the
    most, against the captain and the rival (its targets) and the boatswain; and its
    time-budget curve against the captain. Every player is linked to every other through
    these, so the ladder fits them all."""
    pairs: list[tuple[str, str]] = []
    searched = [level for level in LEVELS if level != "admiral"]
    for i, level in enumerate(searched):
        pairs += [(level, "random"), (level, "greedy"), (level, RIVAL)]
        pairs += [(level, below) for below in searched[:i]]
    pairs += [(RIVAL, "random"), (RIVAL, "greedy")]
    pairs += [("admiral", "captain"), ("admiral", RIVAL), ("admiral", "boatswain")]
    budgets = [max(1, round(ADMIRAL_PLAYOUTS * f)) for f in CURVE_FRACTIONS]
    pairs += [(f"admiral@{budget}", "captain") for budget in budgets]
    return unique(pairs)


def unique(pairs: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The pairings without repeats, one player against another counted once either way."""
    seen, out = set(), []
    for a, b in pairs:
        if a == b or frozenset((a, b)) in seen:
            continue
        seen.add(frozenset((a, b)))
        out.append((a, b))
    return out


def parse_pairings(text: str) -> list[tuple[str, str]]:
    pairs = []
    for item in filter(None, (part.strip() for part in text.split(","))):
        first, colon, second = item.partition(":")
        if not colon:
            raise ValueError(f"a pairing is 'a:b', not {item!r}")
        parse_spec(first)
        parse_spec(second)
        pairs.append((first.strip(), second.strip()))
    return unique(pairs)


# -- playing ----------------------------------------------------------------------------


def luck(seed: int):
    """(the dealt game, each seat's dice) of game ``seed``: the same for the two games of a
    pair (``seed // 2``), the variant in every other pair."""
    deal = seed // 2
    state, _ = new_game(random.Random(f"deal {deal}"), extra_wild=deal % 2 == 1)
    return state, [random.Random(f"dice {deal} {seat}") for seat in (0, 1)]


def play(job):
    """One game: (points for the first player: 1, ½ or 0; the seconds of each side's
    decisions with a choice, first player's then second's).

    The luck is held fixed over a pair of games (``seed // 2``): the same deal, the same
    start seat, the same variant, and each seat the same throws of the dice in the order
    it rolls them, with the players in swapped seats. The dice a player was lucky with in
    one game go to the other player in the next, so the pair's total says more about the
    players than about the luck. The bots draw their guesses from a stream of their own."""
    first, second, seed = job
    state, dice = luck(seed)
    guesses = random.Random(f"bots {seed}")
    specs = (first, second) if seed % 2 == 0 else (second, first)
    players = [player(spec) for spec in specs]
    times: tuple[list[float], list[float]] = ([], [])
    while not state.finished:
        seat = state.turn
        choices = sum(1 for c in legal_commands(state, seat) if c["type"] != "resign")
        start = time.process_time()
        command = players[seat](state, seat, guesses)
        took = time.process_time() - start
        if choices > 1:
            times[seat].append(took)
        for event in decide(state, seat, command, dice[seat]):
            state = evolve(state, event)
    mine = 0 if seed % 2 == 0 else 1
    winner = state.result.winner
    points = 0.5 if winner is None else float(winner == mine)
    return points, times[mine], times[1 - mine]


# -- statistics -------------------------------------------------------------------------


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson's interval for a rate of ``wins`` in ``n`` (a draw counting half)."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def percentile(values: list[float], q: float) -> float:
    """The nearest-rank percentile of ``values`` (0 for none)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


def time_summary(seconds: list[float]) -> dict:
    return {
        "decisions": len(seconds),
        "median_ms": 1000 * percentile(seconds, 0.5),
        "p99_ms": 1000 * percentile(seconds, 0.99),
        "longest_ms": 1000 * max(seconds, default=0.0),
        "mean_ms": 1000 * sum(seconds) / len(seconds) if seconds else 0.0,
    }


ELO = 400 / math.log(10)  # Elo points per unit of the logistic's natural scale


def solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """x with matrix · x = vector (Gauss-Jordan with partial pivoting)."""
    n = len(vector)
    rows = [row[:] + [vector[i]] for i, row in enumerate(matrix)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(rows[r][col]))
        rows[col], rows[pivot] = rows[pivot], rows[col]
        lead = rows[col][col]
        if abs(lead) < 1e-15:
            raise ValueError("singular matrix")
        rows[col] = [x / lead for x in rows[col]]
        for r in range(n):
            if r != col and rows[r][col]:
                factor = rows[r][col]
                rows[r] = [x - factor * y for x, y in zip(rows[r], rows[col], strict=True)]
    return [rows[i][n] for i in range(n)]


def inverse(matrix: list[list[float]]) -> list[list[float]]:
    n = len(matrix)
    columns = [solve(matrix, [float(i == j) for i in range(n)]) for j in range(n)]
    return [[columns[j][i] for j in range(n)] for i in range(n)]


def connected(anchor: str, results: list[tuple[str, str, float, int]]) -> set[str]:
    """The players linked to ``anchor`` through pairings played."""
    reach, grew = {anchor}, True
    while grew:
        grew = False
        for a, b, _, games in results:
            if games and (a in reach) != (b in reach):
                reach |= {a, b}
                grew = True
    return reach


def fit_ratings(results: list[tuple[str, str, float, int]], anchor: str = ANCHOR) -> dict:
    """Bradley-Terry ratings on the Elo scale by maximum likelihood.

    ``results`` holds (first, second, first's points, games). Each pairing also counts one
    virtual draw, so that a clean sweep has a finite rating (a shift of at most half a
    game in a thousand). Ratings are anchored at ``anchor`` = 0; players not linked to it
    by pairings are left out. Returns {player: (rating, low, high, games)}, the bounds a
    95% interval from the Fisher information.
    """
    players = sorted(connected(anchor, results) - {anchor})
    index = {p: i for i, p in enumerate(players)}
    linked = {anchor, *players}
    data = [(a, b, w + 0.5, n + 1) for a, b, w, n in results if n and {a, b} <= linked]
    k = len(players)
    s = [0.0] * k

    def strength(p: str) -> float:
        return 0.0 if p == anchor else s[index[p]]

    def derivatives():
        grad = [0.0] * k
        hess = [[0.0] * k for _ in range(k)]  # minus the Hessian of the log-likelihood
        for a, b, w, n in data:
            p = 1 / (1 + math.exp(strength(b) - strength(a)))
            g, h = w - n * p, n * p * (1 - p)
            ia, ib = index.get(a), index.get(b)
            if ia is not None:
                grad[ia] += g
                hess[ia][ia] += h
            if ib is not None:
                grad[ib] -= g
                hess[ib][ib] += h
            if ia is not None and ib is not None:
                hess[ia][ib] -= h
                hess[ib][ia] -= h
        return grad, hess

    for _ in range(200):
        if not k:
            break
        grad, hess = derivatives()
        step = solve(hess, grad)
        largest = max(abs(x) for x in step)
        if largest > 1:  # Newton's step on a concave likelihood; kept short far from it
            step = [x / largest for x in step]
        s = [x + y for x, y in zip(s, step, strict=True)]
        if largest < 1e-10:
            break
    games = {p: 0 for p in [anchor, *players]}
    for a, b, _, n in results:
        for p in (a, b):
            if p in games:
                games[p] += n
    ladder = {anchor: (0.0, 0.0, 0.0, games[anchor])}
    if k:
        covariance = inverse(derivatives()[1])
        for p, i in index.items():
            half = 1.96 * math.sqrt(max(0.0, covariance[i][i]))
            ladder[p] = (ELO * s[i], ELO * (s[i] - half), ELO * (s[i] + half), games[p])
    return ladder


# -- targets ----------------------------------------------------------------------------


def oriented(pairing: dict, first: str, second: str) -> tuple[float, float, float] | None:
    """(rate, low, high) of ``first`` against ``second`` in a pairing either way round."""
    if (pairing["first"], pairing["second"]) == (first, second):
        low, high = pairing["interval"]
        return pairing["win_rate"], low, high
    if (pairing["first"], pairing["second"]) == (second, first):
        low, high = pairing["interval"]
        return 1 - pairing["win_rate"], 1 - high, 1 - low
    return None


def check_targets(pairings: list[dict]) -> tuple[list[str], list[str]]:
    """(targets met, targets missed), each as words; only for pairings that were played."""
    met, missed = [], []
    for (first, second), target in TARGETS.items():
        for pairing in pairings:
            found = oriented(pairing, first, second)
            if found is None:
                continue
            rate, low, _ = found
            if isinstance(target, tuple):
                ok, words = low > target[1], f"{first} vs {second}: interval above {target[1]:.0%}"
            else:
                ok, words = rate >= target, f"{first} vs {second}: at least {target:.0%}"
            (met if ok else missed).append(words)
    for pairing in pairings:
        for side, spec in (("first_time", pairing["first"]), ("second_time", pairing["second"])):
            t = pairing[side]
            if spec == "admiral" and t["decisions"]:
                words = f"the admiral's time in {pairing['first']} vs {pairing['second']}"
                ok = t["median_ms"] <= ADMIRAL_MEDIAN_MS and t["p99_ms"] <= ADMIRAL_P99_MS
                (met if ok else missed).append(words)
            if spec == "captain" and t["decisions"]:
                words = f"the captain's time in {pairing['first']} vs {pairing['second']}"
                ok = t["mean_ms"] <= CAPTAIN_MEAN_MS and t["longest_ms"] <= CAPTAIN_LONGEST_MS
                (met if ok else missed).append(words)
    return met, missed


def target_words(first: str, second: str) -> str:
    for (a, b), target in TARGETS.items():
        if {a, b} == {first, second}:
            flip = (a, b) != (first, second)
            if isinstance(target, tuple):
                bound = 1 - target[1] if flip else target[1]
                return f"{'below' if flip else 'above'} {bound:.0%}"
            return f"≤ {1 - target:.0%}" if flip else f"≥ {target:.0%}"
    return "—"


# -- output -----------------------------------------------------------------------------


def cpu_name() -> str:
    try:
        for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def pairing_line(p: dict) -> str:
    low, high = p["interval"]
    a, b = p["first_time"], p["second_time"]
    return (
        f"{p['first'] + ' vs ' + p['second']:<26} {p['win_rate']:>6.1%} "
        f"{f'{low:.1%}–{high:.1%}':>13} {p['games']:>5} "
        f"{a['median_ms']:>7.1f}/{a['p99_ms']:>6.0f}/{a['longest_ms']:>5.0f} "
        f"{b['median_ms']:>7.1f}/{b['p99_ms']:>6.0f}/{b['longest_ms']:>5.0f} "
        f"{p['wall_s']:>6.0f}s  {target_words(p['first'], p['second'])}"
    )


def ladder_rows(ladder: dict) -> list[tuple[str, float, float, float, int]]:
    return sorted(((p, *v) for p, v in ladder.items()), key=lambda row: -row[1])


def markdown(pairings: list[dict], ladder: dict) -> str:
    lines = [
        "| pairing | first wins | 95% interval | games "
        "| ms a decision, first (median / p99 / longest) | second | target |",
        "|---|---|---|---|---|---|---|",
    ]
    for p in pairings:
        low, high = p["interval"]
        a, b = p["first_time"], p["second_time"]
        times = [
            f"{t['median_ms']:.1f} / {t['p99_ms']:.0f} / {t['longest_ms']:.0f}" for t in (a, b)
        ]
        lines.append(
            f"| {p['first']} vs {p['second']} | {p['win_rate']:.1%} | {low:.1%}–{high:.1%} "
            f"| {p['games']} | {times[0]} | {times[1]} | {target_words(p['first'], p['second'])} |"
        )
    lines += ["", "| rank | player | rating | 95% interval | games |", "|---|---|---|---|---|"]
    for rank, (name, rating, low, high, games) in enumerate(ladder_rows(ladder), start=1):
        span = "anchor" if name == ANCHOR else f"{low:.0f} to {high:.0f}"
        lines.append(f"| {rank} | {name} | {rating:.0f} | {span} | {games} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--games", type=int, default=1000, help="games a pairing; 0: the --merge ladder only"
    )
    parser.add_argument("--processes", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--seed", type=int, default=20261124)
    parser.add_argument("--only", help="only the pairings with this player (spec or name)")
    parser.add_argument("--pairings", help='the pairings to play, as "a:b,c:d"')
    parser.add_argument("--json", help="also write the results to this file")
    parser.add_argument("--merge", nargs="+", default=[], help="earlier runs' --json files")
    parser.add_argument("--markdown", action="store_true", help="print the tables for docs")
    args = parser.parse_args(argv)
    try:
        pairs = parse_pairings(args.pairings) if args.pairings else default_pairings()
        if args.only:
            parse_spec(args.only)
    except ValueError as error:
        parser.error(str(error))
    if args.games < 0:
        parser.error("--games cannot be negative")
    if args.games == 0:  # nothing to play: the ladder of the merged runs only
        pairs = []
    if args.json:  # before hours of games, not after them
        pathlib.Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    if args.only:
        pairs = [p for p in pairs if args.only in p or args.only in (parse_spec(s)[0] for s in p)]
    print(
        f"{cpu_name()}, {os.cpu_count()} cores, Python {platform.python_version()}; "
        f"{args.games} games per pairing, {args.processes} processes, seed {args.seed}"
    )
    print(
        f"{'pairing':<26} {'wins':>6} {'95% interval':>13} {'games':>5} "
        f"{'first median/p99/max ms':>21} {'second':>21} {'wall':>7}  target"
    )
    played: list[dict] = []
    base = args.seed - args.seed % 2  # the pairs of games with the same luck: 2k, 2k+1
    with multiprocessing.Pool(args.processes) as pool:
        for first, second in pairs:
            jobs = [(first, second, base + i) for i in range(args.games)]
            start = time.perf_counter()
            games = pool.map(play, jobs, chunksize=4)
            wall = time.perf_counter() - start
            wins = sum(g[0] for g in games)
            low, high = wilson(wins, len(games))
            pairing = {
                "first": first,
                "second": second,
                "games": len(games),
                "points": wins,
                "win_rate": wins / len(games) if games else 0.0,
                "interval": [low, high],
                "wall_s": wall,
                "first_time": time_summary([t for g in games for t in g[1]]),
                "second_time": time_summary([t for g in games for t in g[2]]),
            }
            played.append(pairing)
            print(pairing_line(pairing), flush=True)
    merged: dict[frozenset, dict] = {}
    for name in args.merge:
        for pairing in json.loads(pathlib.Path(name).read_text())["pairings"]:
            merged[frozenset((pairing["first"], pairing["second"]))] = pairing
    for pairing in played:
        merged.pop(frozenset((pairing["first"], pairing["second"])), None)
    if merged:
        print(f"merged from earlier runs: {len(merged)} pairings")
        for pairing in merged.values():
            print(pairing_line(pairing))
    pairings = played + list(merged.values())
    results = [(p["first"], p["second"], p["points"], p["games"]) for p in pairings]
    ladder = fit_ratings(results)
    left_out = sorted({s for r in results for s in r[:2]} - set(ladder))
    print(f"\nladder (Bradley-Terry on the Elo scale, {ANCHOR} = 0, 95% intervals):")
    for name, rating, low, high, games in ladder_rows(ladder):
        span = "anchor" if name == ANCHOR else f"{low:6.0f} to {high:6.0f}"
        print(f"  {name:<16} {rating:>6.0f}  {span:>16}  {games:>6} games")
    if left_out:
        print(f"  not linked to {ANCHOR} by any pairing: {', '.join(left_out)}")
    if args.markdown:
        print()
        print(markdown(pairings, ladder))
    met, missed = check_targets(pairings)
    if args.json:
        document = {
            "machine": f"{cpu_name()}, {os.cpu_count()} cores",
            "python": platform.python_version(),
            "seed": args.seed,
            "pairings": pairings,
            "ladder": [
                {"player": n, "rating": r, "interval": [lo, hi], "games": g}
                for n, r, lo, hi, g in ladder_rows(ladder)
            ],
            "anchor": ANCHOR,
            "targets_met": met,
            "targets_missed": missed,
        }
        pathlib.Path(args.json).write_text(json.dumps(document, indent=2))
    if missed:
        print("targets missed: " + "; ".join(missed))
        return 1
    print(f"every target checked was met ({len(met)})" if met else "no target was checked")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
