"""What game sockets cost a Daphne process: memory, a reconnect storm, moves beside them.

    python bench/socket_load.py [--sockets 3000] [--games 8] [--moves 40] [--json]

Starts Daphne (bench.load_site: the site plus /bench/stats) with the options the image runs
it with (the Dockerfile's CMD: handshake timeout, listen backlog), on a fresh PostgreSQL
database (BENCH_DB, default shanghaien_bench_sockets, on BENCH_PG) and a flushed Redis
database (BENCH_REDIS, default 3), and makes N/2 two-player games through the services.

1. Moves, no idle sockets: a few games played through their sockets (bench/load_clients.py);
   the Daphne process's CPU per move (/proc/<pid>/stat, around the moves only).
2. Idle sockets: both players' boards of the N/2 games opened, 20 handshakes at a time;
   the process's resident memory before and after, per socket.
3. Moves with those N sockets attached: the same as 1 on new games.
4. A restart: a new Daphne, and all N boards reconnect at once (what a deploy does):
   how many handshakes fail, how long until every board has its state, the process's
   CPU per handshake and its memory afterwards.
Throughout, the process's garbage collections (bench/load_site.py): the full ones' pauses.

A readable table, then (last line) the figures as one JSON object. The exit status is 0
even when a target is missed; 1 only if the benchmark itself could not run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import pathlib
import re
import resource
import subprocess
import sys
import time
import traceback
import urllib.request

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

# The bench's own databases, set before bench.load_world reads them (and Django, the settings).
os.environ.setdefault("BENCH_REDIS", "redis://127.0.0.1:6379/3")
DB_NAME = os.environ.get("BENCH_DB", "shanghaien_bench_sockets")

from bench import load_world as world  # noqa: E402 (found once ROOT is on the path)

world.DB_NAME = DB_NAME
os.environ["DATABASE_URL"] = f"{world.PG_SERVER}/{DB_NAME}"

from bench.costs import TICK, Server, cpu_ticks  # noqa: E402
from bench.load_clients import play_games  # noqa: E402
from tests.daphne import Servers, _kill, _serves, free_port  # noqa: E402

# The targets (docs/performance.md).
TARGETS = {
    "refused": 0,
    "rss_per_idle_socket_kib": 34,
    "move_cpu_ratio_with_idle": 1.2,
    "move_cpu_ms": 5,
}


def shipped_options() -> tuple[list[str], int | None]:
    """Daphne's options in the image's CMD, but where it listens; and its listen backlog."""
    text = (ROOT / "Dockerfile").read_text()
    command = json.loads(re.search(r"^CMD (\[.+\])\s*$", text, re.M).group(1))
    words = command[1:-1]  # between "daphne" and the application
    options, backlog, i = [], None, 0
    while i < len(words):
        word = words[i]
        if word in ("-b", "--bind", "-p", "--port"):
            i += 2
        elif word in ("-e", "--endpoint"):
            found = re.search(r"backlog=(\d+)", words[i + 1])
            backlog = int(found.group(1)) if found else backlog
            i += 2
        elif word == "--proxy-headers":  # no proxy in front here
            i += 1
        else:
            options.append(word)
            i += 1
    return options, backlog


class Daphne(Server):
    """One Daphne process as the image runs it (bench.costs.Server's readings)."""

    def __init__(self, pg: world.Postgres, log: pathlib.Path):
        self.pg = pg
        options, backlog = shipped_options()
        port = free_port()
        listen = ["-b", "127.0.0.1", "-p", str(port)]
        if backlog is not None:
            listen = ["-e", f"tcp:port={port}:interface=127.0.0.1:backlog={backlog}"]
        self.command = [*options, *listen]
        url = f"http://127.0.0.1:{port}"
        environment = {
            **os.environ,
            "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
            "SITE_URL": url,  # the boards' sockets come from the site's own origin
        }
        log.parent.mkdir(parents=True, exist_ok=True)
        with open(log, "wb") as sink:
            process = subprocess.Popen(
                [sys.executable, "-m", "daphne", *self.command, "bench.load_site:application"],
                cwd=ROOT,
                env=environment,
                stdout=sink,
                stderr=subprocess.STDOUT,
            )
        if not _serves(url + "/healthz?skip=worker", process, time.monotonic() + 60):
            _kill([process])
            raise RuntimeError(f"Daphne did not start (its output: {log})")
        self.running = Servers([url], [process])
        self.urls = [url]
        self.pids = [process.pid]

    @property
    def pid(self) -> int:
        return self.pids[0]

    def rss_kib(self) -> int:
        for line in pathlib.Path(f"/proc/{self.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        return 0

    def gc(self) -> dict:
        """The process's collections so far (none known if it does not answer in time)."""
        try:
            with urllib.request.urlopen(self.urls[0] + "/bench/stats", timeout=60) as answer:
                stats = json.loads(answer.read())
        except OSError:
            return {"gc": None, "full": None}
        return {"gc": stats.get("gc"), "full": stats.get("gc_full_pauses_ms")}


def gc_between(before: dict, after: dict) -> dict | None:
    """The collections between two readings (None: a server without the counts)."""
    if not before["gc"] or not after["gc"]:
        return None
    row = {}
    for generation in ("0", "1", "2"):
        a, b = before["gc"][generation], after["gc"][generation]
        row[f"gen{generation}_count"] = b["count"] - a["count"]
        row[f"gen{generation}_ms"] = round(b["total_ms"] - a["total_ms"], 1)
    full = after["full"][len(before["full"]) :]
    row["full_pauses_ms"] = full
    row["full_max_ms"] = max(full, default=0.0)
    return row


async def board_socket(url: str, game_id: int, cookie: str):
    """A board's socket, as a browser opens it: no handshake timeout of the client's own
    (the caller's, longer than the server's, only stops the run from hanging)."""
    from websockets.asyncio.client import connect

    return await connect(
        url.replace("http", "ws", 1) + f"/ws/games/{game_id}/",
        origin=url,
        additional_headers={"Cookie": cookie},
        open_timeout=None,
        ping_interval=None,
        max_size=2**22,
    )


async def open_boards(url: str, boards: list[tuple[int, str]], at_once: int, timeout: float):
    """Open each (game, cookie) board's socket, ``at_once`` handshakes at a time, and wait
    for its first state. (open sockets, failures by kind, seconds until the last one)."""
    gate = asyncio.Semaphore(at_once)
    sockets, failures = [], {}

    async def board(game_id: int, cookie: str) -> None:
        async with gate:
            try:
                ws = await asyncio.wait_for(board_socket(url, game_id, cookie), timeout)
            except Exception as error:  # refused, reset, timed out: counted by kind
                kind = type(error).__name__
                failures[kind] = failures.get(kind, 0) + 1
                return
            try:
                first = json.loads(await asyncio.wait_for(ws.recv(), timeout))
                if first.get("type") != "state":
                    raise RuntimeError(first.get("type"))
            except Exception as error:
                kind = f"first frame: {type(error).__name__}"
                failures[kind] = failures.get(kind, 0) + 1
                await ws.close()
                return
            sockets.append(ws)

    started = time.perf_counter()
    await asyncio.gather(*(board(game_id, cookie) for game_id, cookie in boards))
    return sockets, failures, time.perf_counter() - started


async def close_all(sockets) -> None:
    for start in range(0, len(sockets), 200):
        await asyncio.gather(*(ws.close() for ws in sockets[start : start + 200]))


def make_games(count: int, tag: str, threads: int = 8) -> list:
    """bench.load_world.make_games on a few threads: each game's writes wait on their commits."""
    from concurrent.futures import ThreadPoolExecutor

    from django.db import connections

    def chunk(i: int) -> list:
        try:
            return world.make_games(len(range(i, count, threads)), f"{tag}{i}x")
        finally:
            connections.close_all()

    with ThreadPoolExecutor(threads) as pool:
        return [game for part in pool.map(chunk, range(threads)) for game in part]


def moves(server: Daphne, tag: str, args) -> dict:
    """A few games played; on new games again if a handshake or a move fails (a server
    whose handshakes time out under its idle sockets), three times at most."""
    failed = []
    for attempt in range(3):
        games = world.make_games(args.games, f"{tag}{attempt}r")
        try:
            row = asyncio.run(
                play_games(server, games, moves=args.moves, timeout=args.timeout, seed=args.seed)
            )
        except Exception as error:  # a refused handshake, say
            failed.append(repr(error)[:200])
            continue
        if row["errors"] or row["timeouts"] or row["unacked_commands"]:
            failed.append(str(row["failures"])[:200])
            continue
        break
    else:
        raise RuntimeError(f"the moves failed three times: {failed}")
    return {
        "failed_attempts": failed,
        "moves": row["moves"],
        "server_cpu_ms": row["per_move"]["server_cpu_ms"],
        "statements": row["per_move"]["statements"],
        "ack_p50_ms": row["ack_ms"]["p50"] if row["ack_ms"] else None,
        "push_p99_ms": row["push_ms"]["p99"] if row["push_ms"] else None,
    }


def raise_open_files(needed: int) -> int:
    """Enough descriptors for this process's sockets and the server's (inherited)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = min(hard, max(soft, needed)) if hard != resource.RLIM_INFINITY else max(soft, needed)
    resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
    return wanted


def somaxconn() -> int | None:
    try:
        return int(pathlib.Path("/proc/sys/net/core/somaxconn").read_text())
    except OSError:
        return None


def run(args) -> dict:
    n = args.sockets
    limit = raise_open_files(2 * n + 1024)
    started = time.monotonic()

    def progress(what: str) -> None:
        print(f"[{time.monotonic() - started:5.0f} s] {what}", flush=True)

    world.fresh_database()
    world.setup_django()
    pg = world.Postgres()
    options, backlog = shipped_options()
    report = {
        "sockets": n,
        "daphne_options": options,
        "backlog": backlog,
        "somaxconn": somaxconn(),
        "open_files_limit": limit,
    }
    logs = world.RESULTS
    try:
        progress(f"making {(n + 1) // 2} games for the idle boards")
        games = make_games((n + 1) // 2, "idle")
        boards = [(game_id, cookie) for game_id, *cookies in games for cookie in cookies][:n]

        server = Daphne(pg, logs / "daphne-sockets.log")
        try:
            gc0 = server.gc()
            report["moves_alone"] = moves(server, "alone", args)
            progress(f"moves alone: {report['moves_alone']['server_cpu_ms']} ms a move")
            gc1 = server.gc()
            idle = asyncio.run(idle_phase(server, boards, args))
            report["idle"] = idle.pop("figures")
            report["rss_per_idle_socket_kib"] = idle.pop("rss_per_socket_kib")
            report["moves_with_idle"] = idle.pop("moves")
            report["idle_sockets_attached"] = idle.pop("attached")
            gc2, gc3 = idle.pop("gc")
            progress(f"moves beside them: {report['moves_with_idle']['server_cpu_ms']} ms a move")
            gc3 = server.gc()
            report["gc"] = {
                "moves_alone": gc_between(gc0, gc1),
                "opening_idle": gc_between(gc1, gc2),
                "moves_with_idle": gc_between(gc2, gc3),
            }
        finally:
            server.stop()

        server = Daphne(pg, logs / "daphne-sockets-storm.log")
        try:
            before = server.rss_kib()
            t0 = cpu_ticks(server.pid)
            gc0 = server.gc()
            sockets, failures, seconds = asyncio.run(storm(server.urls[0], boards, args))
            handshakes = cpu_ticks(server.pid) - t0
            time.sleep(2)
            after = server.rss_kib()
            gc1 = server.gc()
            report["refused"] = sum(failures.values())
            report["connect_seconds"] = round(seconds, 1)
            report["storm"] = {
                "opened": len(sockets),
                "failures": failures,
                "cpu_ms_per_handshake": round(handshakes * 1000 / TICK / max(len(sockets), 1), 2),
                "rss_after_mib": round(after / 1024, 1),
                "rss_per_socket_kib": round((after - before) / max(len(sockets), 1), 1),
                "gc": gc_between(gc0, gc1),
            }
            progress(f"storm: {len(sockets)} open, {report['refused']} failed, {seconds:.1f} s")
        finally:
            server.stop()
    finally:
        pg.close()
    alone = report["moves_alone"]["server_cpu_ms"]
    beside = report["moves_with_idle"]["server_cpu_ms"]
    report["move_cpu_ms"] = alone
    report["move_cpu_ms_with_idle"] = beside
    report["move_cpu_ratio_with_idle"] = round(beside / alone, 2) if alone else None
    fulls = [g for g in report["gc"].values() if g] + (
        [report["storm"]["gc"]] if report["storm"]["gc"] else []
    )
    report["gc_full_max_ms"] = max((g["full_max_ms"] for g in fulls), default=None)
    report["seconds"] = round(time.monotonic() - started, 1)
    return report


async def idle_phase(server: Daphne, boards, args) -> dict:
    """Open the idle boards, read the memory, and play moves while they stay open (on
    this loop, which answers their pings; the moves run on a thread and a loop of their
    own)."""
    before = server.rss_kib()
    t0 = cpu_ticks(server.pid)
    sockets, failures, seconds = await open_boards(
        server.urls[0], boards, args.at_once, args.timeout * 4
    )
    opened = cpu_ticks(server.pid) - t0
    await asyncio.sleep(2)
    after = server.rss_kib()
    print(
        f"{len(sockets)} idle sockets: {(after - before) / max(len(sockets), 1):.1f} KiB each"
        f" ({failures or 'no failures'})",
        flush=True,
    )
    gc_opened = await asyncio.to_thread(server.gc)
    try:
        played = await asyncio.to_thread(moves, server, "beside", args)
        gc_moved = await asyncio.to_thread(server.gc)
    finally:
        await close_all(sockets)
    return {
        "figures": {
            "opened": len(sockets),
            "failures": failures,
            "seconds": round(seconds, 1),
            "rss_before_mib": round(before / 1024, 1),
            "rss_after_mib": round(after / 1024, 1),
            "cpu_ms_per_handshake": round(opened * 1000 / TICK / max(len(sockets), 1), 2),
        },
        "rss_per_socket_kib": round((after - before) / max(len(sockets), 1), 1),
        "moves": played,
        "attached": len(sockets),
        "gc": (gc_opened, gc_moved),
    }


async def storm(url: str, boards, args):
    sockets, failures, seconds = await open_boards(url, boards, len(boards), args.timeout * 10)
    await close_all(sockets)
    return sockets, failures, seconds


def verdicts(report: dict) -> dict:
    return {
        "refused": report["refused"] <= TARGETS["refused"],
        "rss_per_idle_socket_kib": report["rss_per_idle_socket_kib"]
        <= TARGETS["rss_per_idle_socket_kib"],
        "move_cpu_ratio_with_idle": report["move_cpu_ratio_with_idle"] is not None
        and report["move_cpu_ratio_with_idle"] <= TARGETS["move_cpu_ratio_with_idle"],
        "move_cpu_ms": report["move_cpu_ms"] <= TARGETS["move_cpu_ms"]
        and report["move_cpu_ms_with_idle"] <= TARGETS["move_cpu_ms"],
    }


def print_table(report: dict) -> None:
    passed = report["pass"]
    mark = {True: "pass", False: "FAIL"}
    rows = [
        ("handshakes failed, all at once", report["refused"], "0", mark[passed["refused"]]),
        ("seconds until every board had its state", report["connect_seconds"], "", ""),
        ("server CPU per handshake (storm), ms", report["storm"]["cpu_ms_per_handshake"], "", ""),
        (
            "RSS per idle game socket, KiB",
            report["rss_per_idle_socket_kib"],
            f"<= {TARGETS['rss_per_idle_socket_kib']}",
            mark[passed["rss_per_idle_socket_kib"]],
        ),
        ("RSS per socket after the storm, KiB", report["storm"]["rss_per_socket_kib"], "", ""),
        (
            "server CPU per move, ms",
            report["move_cpu_ms"],
            f"<= {TARGETS['move_cpu_ms']}",
            mark[passed["move_cpu_ms"]],
        ),
        (
            f"... with {report['idle_sockets_attached']} idle sockets, ms",
            report["move_cpu_ms_with_idle"],
            "",
            "",
        ),
        (
            "ratio",
            report["move_cpu_ratio_with_idle"],
            f"<= {TARGETS['move_cpu_ratio_with_idle']}",
            mark[passed["move_cpu_ratio_with_idle"]],
        ),
        ("longest full GC pause, ms", report["gc_full_max_ms"], "", ""),
    ]
    print(f"\nDaphne {' '.join(report['daphne_options'])}; backlog {report['backlog']}", end="")
    print(f" (somaxconn {report['somaxconn']}); {report['sockets']} sockets\n")
    print(f"{'':44} {'figure':>10} {'target':>8}")
    for label, value, target, verdict in rows:
        print(f"{label:44} {value!s:>10} {target:>8} {verdict}")
    for phase, row in {**report["gc"], "storm": report["storm"]["gc"]}.items():
        if row:
            print(
                f"GC {phase}: {row['gen0_count']}/{row['gen1_count']}/{row['gen2_count']}"
                f" collections (gen 0/1/2), {row['gen0_ms'] + row['gen1_ms'] + row['gen2_ms']:.1f}"
                f" ms in all, full ones {row['full_pauses_ms'][:12]} ms"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sockets", type=int, default=3000, help="idle game sockets")
    parser.add_argument("--games", type=int, default=8, help="games moving in each move run")
    parser.add_argument("--moves", type=int, default=40, help="commands per moving game")
    parser.add_argument("--at-once", type=int, default=20, help="idle handshakes at a time")
    parser.add_argument("--timeout", type=float, default=30, help="longest wait for a frame, s")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="(the JSON line is always last)")
    args = parser.parse_args()
    try:
        report = run(args)
    except Exception as error:
        traceback.print_exc()
        print(f"\nFAILED: the benchmark stopped: {error!r}", file=sys.stderr)
        sys.exit(1)
    report["pass"] = verdicts(report)
    print_table(report)
    print(json.dumps(report))


if __name__ == "__main__":
    main()
