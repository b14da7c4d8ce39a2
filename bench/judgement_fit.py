"""Where the bots' judgement is off: how the parts of its expected lead turn out.

    python bench/judgement_fit.py [--games N] [--processes P] [--policy NAME]
        [--judgement sharp|keen] [--duel "option=1.2,tavern=0.7" ...] [--duel-games N]

**The fit.** Plays N games (default 10,000) between two copies of a one-move policy
(``judged_start`` unless told; any of ``bot_strength.POLICIES``), the variant in every
other game, and at each round's start takes apart, from the first seat's side, the
expected lead of a judgement (``evaluation.SHARP`` or ``KEEN``): the crews with the
cards still to come, the tavern's new cards (unweighted), the difference in trick cards
in hand, and who begins the round. Then, one per round, a logistic regression of how the
game ended on those four parts, fitted on four fifths of the games and scored on the
last fifth against the judgement's lead as one number with ``evaluation.ROUND_FIT``'s
weights (what ``calibrated_value`` does). It prints each part's weight and, in points
of the crews' lead, what a trick card in hand and a point of the tavern's expectation
are worth: a judgement in the right proportions has a trick card worth
``1 + option`` (the point it scores, and its use) and the tavern worth ``tavern``.

**The duels.** ``--duel`` plays ``policies.judged_with`` (``judged_start``'s rule by
another judgement), ``KEEN`` with the fields given changed, against ``judged_start``, with
bot_strength's pairs of games of the same luck; one line a judgement, its win rate with
the 95% interval. ``--duel`` alone, with no fit wanted: ``--games 0``.

Figures in ``docs/bots.md``, "How the admiral was found".
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import os
import random
import sys
from dataclasses import fields, replace
from functools import partial

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "shanghaien.settings")

from bench.bot_strength import POLICIES, by_policy, luck, solve, wilson  # noqa: E402
from games.bots.evaluation import (  # noqa: E402
    KEEN,
    ROUND_FIT,
    SHARP,
    Judgement,
    deck_values,
    expected_lead,
    future_diff,
    strengths,
)
from games.bots.policies import judged_start, judged_with  # noqa: E402
from games.rules import decide, evolve, new_game  # noqa: E402

JUDGEMENTS = {"sharp": SHARP, "keen": KEEN}
PARTS = ("crews", "tavern", "tricks", "start")


def parts(state, seat: int, j: Judgement) -> dict:
    """The expected lead of ``j`` at a round's start, taken apart."""
    mine, theirs = strengths(state, seat)
    crews = sum(
        future_diff(a, b, rest, j.share)
        for a, b, rest in zip(mine, theirs, deck_values(state), strict=True)
    )
    whole = expected_lead(state, seat, replace(j, tavern=1.0))
    held = expected_lead(state, seat, replace(j, tavern=0.0))
    me, them = state.players[seat], state.players[1 - seat]
    return {
        "crews": crews,
        "tavern": whole - held,
        "tricks": len(me.tricks) - len(them.tricks),
        "start": 1 if state.start_player == seat else -1,
        "lead": expected_lead(state, seat, replace(j, share=0.3)),
    }


def fit_game(job) -> list[dict]:
    """The round starts of one game between two copies of the policy, each with how the
    game ended for the first seat (1, ½ or 0)."""
    seed, policy, judgement = job
    state, _ = new_game(random.Random(f"fit {seed}"), extra_wild=seed % 2 == 1)
    dice, guesses = random.Random(f"fit dice {seed}"), random.Random(f"fit bots {seed}")
    rows, seen = [], None
    while not state.finished:
        if state.round != seen:
            seen = state.round
            rows.append({"round": state.round, **parts(state, 0, JUDGEMENTS[judgement])})
        seat = state.turn
        command = by_policy(POLICIES[policy], state, seat, guesses)
        for event in decide(state, seat, command, dice):
            state = evolve(state, event)
    winner = state.result.winner
    outcome = 0.5 if winner is None else float(winner == 0)
    return [{**row, "won": outcome} for row in rows]


def sigmoid(z: float) -> float:
    return 1 / (1 + math.exp(-max(-35.0, min(35.0, z))))


def logistic(rows: list[dict], names: tuple[str, ...], steps: int = 12) -> list[float]:
    """Maximum-likelihood weights (no intercept: the parts are from one seat's side and
    change sign with it) of the outcome on the named parts, by Newton's method, with a
    ridge of 1 (nothing against thousands of positions; it keeps a handful finite)."""
    weights = [0.0] * len(names)
    for _ in range(steps):
        grad = list(weights)
        hess = [[float(i == k) for k in range(len(names))] for i in range(len(names))]
        for row in rows:
            x = [row[name] for name in names]
            p = sigmoid(sum(w * v for w, v in zip(weights, x, strict=True)))
            for i, xi in enumerate(x):
                grad[i] += (p - row["won"]) * xi
                for k, xk in enumerate(x):
                    hess[i][k] += p * (1 - p) * xi * xk
        step = solve(hess, grad)
        weights = [w - s for w, s in zip(weights, step, strict=True)]
    return weights


def log_loss(rows: list[dict], chance) -> float:
    total = 0.0
    for row in rows:
        p = min(max(chance(row), 1e-9), 1 - 1e-9)
        total -= row["won"] * math.log(p) + (1 - row["won"]) * math.log(1 - p)
    return total / len(rows)


def fit_lines(rows: list[dict]) -> list[str]:
    lines = [
        "round  positions   crews  tavern  tricks   start   trick card  tavern point"
        "   log-loss: fit  ROUND_FIT"
    ]
    for round_no in range(2, 9):
        these = [row for row in rows if row["round"] == round_no]
        cut = len(these) * 4 // 5
        train, test = these[:cut], these[cut:]
        w = logistic(train, PARTS)
        weight, start = ROUND_FIT[round_no]

        def fitted(row, w=w):
            return sigmoid(sum(wi * row[p] for wi, p in zip(w, PARTS, strict=True)))

        def table(row, weight=weight, start=start):
            return sigmoid(weight * row["lead"] + start * row["start"])

        lines.append(
            f"{round_no:>5}  {len(these):>9}  "
            + "  ".join(f"{x:>6.3f}" for x in w)
            + f"   {ratio(w[2], w[0]):>10}  {ratio(w[1], w[0]):>12}"
            + f"   {log_loss(test, fitted):>13.4f}  {log_loss(test, table):>9.4f}"
        )
    return lines


def ratio(part: float, crews: float) -> str:
    return f"{part / crews:.2f}" if crews > 0 else "-"


def judgement_from(text: str) -> Judgement:
    """A judgement from "field=value,…" over ``KEEN``'s (e.g. "option=1.2,tavern=0.7")."""
    known = {f.name: f.type for f in fields(Judgement)}
    changes = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        name, equals, raw = item.partition("=")
        if not equals or name not in known:
            raise ValueError(f"not a judgement's field=value: {item!r} ({', '.join(known)})")
        if known[name] in ("bool", bool):
            changes[name] = raw.lower() in ("1", "true", "yes")
        else:
            try:
                changes[name] = float(raw)
            except ValueError:
                raise ValueError(f"{name} takes a number, not {raw!r}") from None
    return replace(KEEN, **changes)


def duel_game(job) -> float:
    """One game of the judgement ``text`` against ``judged_start``: 1, ½ or 0 for it."""
    text, seed = job
    state, dice = luck(seed)
    guesses = random.Random(f"bots {seed}")
    tried = partial(judged_with, judgement_from(text))
    policies = (tried, judged_start) if seed % 2 == 0 else (judged_start, tried)
    while not state.finished:
        seat = state.turn
        command = by_policy(policies[seat], state, seat, guesses)
        for event in decide(state, seat, command, dice[seat]):
            state = evolve(state, event)
    mine = 0 if seed % 2 == 0 else 1
    winner = state.result.winner
    return 0.5 if winner is None else float(winner == mine)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--processes", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--policy", default="judged_start", choices=sorted(POLICIES))
    parser.add_argument("--judgement", default="sharp", choices=sorted(JUDGEMENTS))
    parser.add_argument("--duel", action="append", default=[])
    parser.add_argument("--duel-games", type=int, default=4_000)
    args = parser.parse_args(argv)
    for text in args.duel:
        try:
            judgement_from(text)
        except ValueError as error:
            parser.error(str(error))
    with multiprocessing.Pool(args.processes) as pool:
        if args.games > 0:
            jobs = [(seed, args.policy, args.judgement) for seed in range(args.games)]
            rows = [row for game in pool.map(fit_game, jobs, chunksize=50) for row in game]
            print(
                f"{args.games} games of {args.policy} against itself, the {args.judgement}"
                " judgement's lead at each round's start, taken apart (weights in log-odds;"
                " a trick card and a tavern point in points of the crews' lead):"
            )
            print("\n".join(fit_lines(rows)))
        for text in args.duel:
            jobs = [(text, seed) for seed in range(args.duel_games)]
            won = sum(pool.map(duel_game, jobs, chunksize=20))
            low, high = wilson(won, args.duel_games)
            print(
                f"{text or 'keen'} against judged_start: {100 * won / args.duel_games:.1f}%"
                f" ({100 * low:.1f}%-{100 * high:.1f}%, {args.duel_games} games)"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
