"""Load benchmark of the move path, beside its floors, in one run.

    python bench/load.py [--games 10,50,200] [--moves 1000] [--repeat 50]
                         [--processes 2] [--paced 100] [--paced-seconds 30] [--idle 1000]

Starts Daphne (bench.load_site: the site plus an echo socket and /bench/stats) on a fresh
PostgreSQL database (BENCH_DB, default shanghaien_bench) and a flushed Redis database
(BENCH_REDIS, default 2), makes users and games through the service layer, and plays
them with asyncio websocket clients, two sockets a game, each player sending random
legal commands.

1. Floors, on the idle server: a websocket ping/pong with the lobby socket; one
   INSERT + COMMIT over a psycopg connection this process opened once; a round trip
   with the bench echo socket. The floor of a move is ping p50 + commit p50.
2. Closed loop: N games whose players move as soon as their ack and state allow (a
   socket sends at most one command every 60 ms, under the server's 20 a second), for a
   fixed number of moves in all. Per command, ack = send -> the actor's ack and push =
   send -> the opponent's first state at or past the acked version. Per run, around the
   moves only: the Daphne processes' CPU (/proc/<pid>/stat), PostgreSQL's, Redis's and
   this client's CPU, the machine's busy share, the SQL the servers sent (their
   /bench/stats counts), and the new PostgreSQL sessions (pg_stat_database.sessions).
   The same size runs twice in a row (A/A) so the noise shows; one more run spreads
   each game's two players over two Daphne processes.
3. Paced: N games each moving about once a second, their phases spread, for a fixed
   time; the same figures, against the floor.
4. Resident memory of one Daphne process with idle lobby sockets.

A player is done once its last command's ack and the game's final state have both come,
in either order. An error frame, a closed socket or a wait over --timeout fails the run:
the tables are still printed and written, then the exit status is 1.
Results: tables on stdout, everything in bench/results/load.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import pathlib
import platform
import sys
import time
import traceback

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

# bench.load_world sets the environment (DATABASE_URL, DJANGO_*) before anything imports Django.
from bench.costs import Server  # noqa: E402 (found once ROOT is on the path)
from bench.load_clients import echo_floor, idle_memory, ping_floor, play_games  # noqa: E402
from bench.load_world import RESULTS, Postgres, fresh_database, make_games, setup_django  # noqa: E402
from bench.report import compare, print_report, summary  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default="10,50,200", help="closed-loop game counts")
    parser.add_argument("--moves", type=int, default=1000, help="moves in all per closed-loop run")
    parser.add_argument("--repeat", type=int, default=50, help="game count run twice (0: none)")
    parser.add_argument(
        "--processes",
        type=int,
        default=2,
        help="one more closed-loop run (at --repeat games) on this many Daphne processes (1: none)",
    )
    parser.add_argument("--paced", type=int, default=100, help="paced games (0: none)")
    parser.add_argument("--paced-seconds", type=float, default=30)
    parser.add_argument("--paced-interval", type=float, default=1.0, help="seconds a move")
    parser.add_argument("--floor-samples", type=int, default=400)
    parser.add_argument("--idle", type=int, default=1000, help="idle sockets for memory (0: none)")
    parser.add_argument("--timeout", type=float, default=30, help="longest wait for a frame, s")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", default=str(RESULTS / "load.json"))
    args = parser.parse_args()
    sizes = [int(n) for n in args.games.split(",") if n]
    started = time.monotonic()

    fresh_database()
    setup_django()
    pg = Postgres()
    report = {
        "when": time.strftime("%Y-%m-%d %H:%M:%S"),
        "python": platform.python_version(),
        "cores": os.cpu_count(),
        "postgres_version": pg.conn.info.server_version,
        "options": vars(args),
        "runs": [],
    }
    runs = report["runs"]

    def progress(what: str) -> None:
        print(f"[{time.monotonic() - started:5.0f} s] {what}", flush=True)

    def closed(server: Server, n: int, label: str) -> None:
        games = make_games(n, f"r{len(runs)}n")
        per_game = max(2, round(args.moves / n))
        row = asyncio.run(
            play_games(server, games, moves=per_game, timeout=args.timeout, seed=args.seed + n)
        )
        runs.append({"label": label, **row})
        progress(f"{label}: {row['moves']} moves, {row['moves_per_s']} moves/s")

    try:
        server = Server(1, pg)
        try:
            progress("floors")
            cookie = make_games(1, "floor")[0][1]
            url = server.urls[0]
            report["floors"] = {
                "ping_ms": summary(asyncio.run(ping_floor(url, cookie, args.floor_samples // 2))),
                "commit_ms": summary(pg.commit_floor(args.floor_samples)),
                "echo_ms": summary(asyncio.run(echo_floor(url, cookie, args.floor_samples))),
            }
            floors = report["floors"]
            floors["move_floor_ms"] = round(
                floors["ping_ms"]["p50"] + floors["commit_ms"]["p50"], 2
            )
            for n in sizes:
                closed(server, n, f"closed N={n}")
                if n == args.repeat:
                    closed(server, n, f"closed N={n} again")
                    report["aa"] = compare(f"closed N={n}", runs[-2], runs[-1])
            if args.repeat and args.repeat not in sizes:
                closed(server, args.repeat, f"closed N={args.repeat}")
                closed(server, args.repeat, f"closed N={args.repeat} again")
                report["aa"] = compare(f"closed N={args.repeat}", runs[-2], runs[-1])
            if args.paced:
                games = make_games(args.paced, "paced")
                row = asyncio.run(
                    play_games(
                        server,
                        games,
                        moves=None,
                        timeout=args.timeout,
                        seed=args.seed,
                        pace=args.paced_interval,
                        seconds=args.paced_seconds,
                    )
                )
                runs.append({"label": f"paced N={args.paced}", **row})
                progress(
                    f"paced N={args.paced}: {row['moves']} moves, {row['moves_per_s']} moves/s"
                )
            if args.idle:
                report["idle_memory"] = asyncio.run(idle_memory(server, cookie, args.idle))
                progress(f"idle memory: {args.idle} sockets")
        finally:
            server.stop()
        if args.processes > 1:
            n = args.repeat or sizes[-1]
            server = Server(args.processes, pg)
            try:
                closed(server, n, f"closed N={n} {args.processes}p")
            finally:
                server.stop()
    except Exception as error:  # a server that crashed or stopped answering, say
        traceback.print_exc()
        print(
            f"\nFAILED: the benchmark stopped: {error!r} (servers' output: {RESULTS}/daphne*.log)",
            file=sys.stderr,
        )
        sys.exit(1)
    finally:
        pg.close()

    report["seconds"] = round(time.monotonic() - started, 1)
    print_report(report)
    out = pathlib.Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2))
    print(f"\nwritten to {out} ({report['seconds']} s)")

    bad = [
        r
        for r in runs
        if r["errors"] or r["timeouts"] or r["unacked_commands"] or r["missing_pushes"]
    ]
    if bad:
        print("\nFAILED: errors or timeouts in the move runs:", file=sys.stderr)
        for r in bad:
            print(
                f"  {r['label']}: {r['errors']} errors, {r['timeouts']} timeouts, "
                f"{r['unacked_commands']} commands never acked, {r['missing_pushes']} "
                f"pushes never seen; {r['failures']}",
                file=sys.stderr,
            )
        sys.exit(1)


if __name__ == "__main__":
    main()
