"""What open HTTP streams cost a Daphne process: memory, and the move path's CPU beside them.

    python bench/stream_load.py [--streams 1000] [--games 8] [--moves 40] [--json]

Starts one Daphne (bench.socket_load.Daphne: the image's options, bench.load_site) on a
fresh PostgreSQL database (BENCH_DB, default shanghaien_bench_streams, on BENCH_PG) and
a flushed Redis database (BENCH_REDIS, default 6), makes N accounts and a token each in
bulk, then in one run:

1. The floor: a lobby socket's ping (bench.load_clients.ping_floor) and one committed
   INSERT on a kept connection (bench.load_world.Postgres.commit_floor).
2. Moves, no stream open: a few games played through their sockets; the process's CPU
   per move (bench.socket_load.moves), after a first run that warms the process up.
3. N account streams (``GET /api/stream/``, one per account, by token) opened 50 at a
   time, each read to its response head; the process's resident memory before and after.
4. The same moves with those N streams open (their accounts idle: each stream waits on
   its group, with a keep-alive every STREAM_KEEPALIVE_SECONDS); then how many are
   still open.

A readable table, then (last line) the figures as one JSON object. The exit status is 0
even when a target is missed; 1 only if the benchmark itself could not run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import pathlib
import sys
import time
import traceback
from urllib.parse import urlsplit

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

os.environ.setdefault("BENCH_REDIS", "redis://127.0.0.1:6379/6")
DB_NAME = os.environ.get("BENCH_DB", "shanghaien_bench_streams")

from bench import load_world as world  # noqa: E402

world.DB_NAME = DB_NAME
os.environ["DATABASE_URL"] = f"{world.PG_SERVER}/{DB_NAME}"

from bench import socket_load  # noqa: E402
from bench.costs import TICK, cpu_ticks  # noqa: E402
from bench.load_clients import ping_floor  # noqa: E402
from bench.report import summary  # noqa: E402

TARGETS = {"move_cpu_ratio_with_streams": 1.2, "refused": 0, "closed_early": 0}


def make_accounts(count: int, tag: str) -> list[str]:
    """``count`` accounts and a token each, in two bulk inserts; the raw tokens."""
    from accounts.models import TOKEN_PREFIX, ApiToken, User, hash_token

    users = User.objects.bulk_create(
        [User(username=f"{tag}{i}", password="!") for i in range(count)], batch_size=500
    )
    if users and users[0].pk is None:  # a backend that returns no keys
        users = list(User.objects.filter(username__startswith=tag).order_by("pk"))
    raws = [f"{TOKEN_PREFIX}bench{tag}{i:06d}" for i in range(count)]
    ApiToken.objects.bulk_create(
        [
            ApiToken(
                user=user, name="bench", digest=hash_token(raw), hint=raw[:8], scopes="play read"
            )
            for user, raw in zip(users, raws, strict=True)
        ],
        batch_size=500,
    )
    return raws


async def open_stream(url: str, token: str, timeout: float):
    """An account stream over a plain connection: the response head read, the body left
    to come. (reader, writer)."""
    parts = urlsplit(url)
    reader, writer = await asyncio.wait_for(
        asyncio.open_connection(parts.hostname, parts.port), timeout
    )
    writer.write(
        (
            f"GET /api/stream/ HTTP/1.1\r\nHost: {parts.hostname}\r\n"
            f"Authorization: Bearer {token}\r\nAccept: application/x-ndjson\r\n\r\n"
        ).encode()
    )
    await writer.drain()
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), timeout)
    status = head.split(b" ", 2)[1]
    if status != b"200":
        writer.close()
        raise RuntimeError(f"status {status.decode()}")
    return reader, writer


async def open_streams(url: str, tokens: list[str], at_once: int, timeout: float):
    gate = asyncio.Semaphore(at_once)
    streams, failures = [], {}

    async def one(token: str) -> None:
        async with gate:
            try:
                streams.append(await open_stream(url, token, timeout))
            except Exception as error:
                kind = str(error) if isinstance(error, RuntimeError) else type(error).__name__
                failures[kind] = failures.get(kind, 0) + 1

    started = time.perf_counter()
    await asyncio.gather(*(one(token) for token in tokens))
    return streams, failures, time.perf_counter() - started


async def streams_phase(server, tokens: list[str], args) -> dict:
    """Open the streams, read the memory, and play moves while they stay open (the moves
    on a thread and a loop of their own, the streams' bodies drained here)."""
    before = server.rss_kib()
    t0 = cpu_ticks(server.pid)
    streams, failures, seconds = await open_streams(
        server.urls[0], tokens, args.at_once, args.timeout
    )
    opened = cpu_ticks(server.pid) - t0
    await asyncio.sleep(2)
    after = server.rss_kib()
    print(
        f"{len(streams)} open streams: {(after - before) / max(len(streams), 1):.1f} KiB each"
        f" ({failures or 'no failures'})",
        flush=True,
    )
    received = [0]

    async def drain(reader) -> None:
        while chunk := await reader.read(4096):
            received[0] += len(chunk)

    drains = [asyncio.ensure_future(drain(reader)) for reader, _writer in streams]
    try:
        played = await asyncio.to_thread(socket_load.moves, server, "beside", args)
        await asyncio.sleep(0.5)
        closed_early = sum(task.done() for task in drains)
    finally:
        for task in drains:
            task.cancel()
        for _reader, writer in streams:
            writer.close()
    return {
        "opened": len(streams),
        "failures": failures,
        "seconds": round(seconds, 1),
        "rss_before_mib": round(before / 1024, 1),
        "rss_after_mib": round(after / 1024, 1),
        "rss_per_stream_kib": round((after - before) / max(len(streams), 1), 1),
        "cpu_ms_per_open": round(opened * 1000 / TICK / max(len(streams), 1), 2),
        "closed_early": closed_early,
        "bytes_received": received[0],
        "moves": played,
    }


def run(args) -> dict:
    socket_load.raise_open_files(2 * args.streams + 1024)
    started = time.monotonic()

    def progress(what: str) -> None:
        print(f"[{time.monotonic() - started:5.0f} s] {what}", flush=True)

    world.fresh_database()
    world.setup_django()
    pg = world.Postgres()
    report = {"streams": args.streams}
    try:
        progress(f"making {args.streams} accounts and tokens")
        tokens = make_accounts(args.streams, "reader")
        cookie = world.make_games(1, "floor")[0][1]
        server = socket_load.Daphne(pg, world.RESULTS / "daphne-streams.log")
        try:
            progress("floors")
            report["floors"] = {
                "ping_ms": summary(
                    asyncio.run(ping_floor(server.urls[0], cookie, args.floor_samples // 2))
                ),
                "commit_ms": summary(pg.commit_floor(args.floor_samples)),
            }
            socket_load.moves(server, "warm", args)  # a new process's first moves cost more
            report["moves_alone"] = socket_load.moves(server, "alone", args)
            progress(f"moves alone: {report['moves_alone']['server_cpu_ms']} ms a move")
            phase = asyncio.run(streams_phase(server, tokens, args))
            report["moves_with_streams"] = phase.pop("moves")
            report["open"] = phase
            progress(f"moves beside: {report['moves_with_streams']['server_cpu_ms']} ms a move")
        finally:
            server.stop()
    finally:
        pg.close()
    alone = report["moves_alone"]["server_cpu_ms"]
    beside = report["moves_with_streams"]["server_cpu_ms"]
    report["move_cpu_ms"] = alone
    report["move_cpu_ms_with_streams"] = beside
    report["move_cpu_ratio_with_streams"] = round(beside / alone, 2) if alone else None
    report["refused"] = sum(report["open"]["failures"].values())
    report["closed_early"] = report["open"]["closed_early"]
    report["rss_per_stream_kib"] = report["open"]["rss_per_stream_kib"]
    report["seconds"] = round(time.monotonic() - started, 1)
    return report


def verdicts(report: dict) -> dict:
    return {
        "move_cpu_ratio_with_streams": (report["move_cpu_ratio_with_streams"] or 99)
        <= TARGETS["move_cpu_ratio_with_streams"],
        "refused": report["refused"] <= TARGETS["refused"],
        "closed_early": report["closed_early"] <= TARGETS["closed_early"],
    }


def print_table(report: dict) -> None:
    floors, opened = report["floors"], report["open"]
    print()
    ping, commit = floors["ping_ms"]["p50"], floors["commit_ms"]["p50"]
    print(f"floor: ping p50 {ping} ms, commit p50 {commit} ms")
    print(
        f"streams: {opened['opened']} open in {opened['seconds']} s, failures {opened['failures']},"
        f" {opened['rss_per_stream_kib']} KiB each (RSS {opened['rss_before_mib']} ->"
        f" {opened['rss_after_mib']} MiB), {opened['cpu_ms_per_open']} ms CPU to open each,"
        f" {opened['closed_early']} closed before the end"
    )
    for label, key in (("alone", "moves_alone"), ("with streams", "moves_with_streams")):
        row = report[key]
        print(
            f"moves {label:>12}: {row['moves']} moves, server CPU {row['server_cpu_ms']} ms a move,"
            f" {row['statements']} statements, ack p50 {row['ack_p50_ms']} ms,"
            f" push p99 {row['push_p99_ms']} ms"
        )
    print(
        f"ratio: {report['move_cpu_ratio_with_streams']} (target <="
        f" {TARGETS['move_cpu_ratio_with_streams']}); pass: {report['pass']}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--streams", type=int, default=1000, help="open account streams")
    parser.add_argument("--games", type=int, default=8, help="games moving in each move run")
    parser.add_argument("--moves", type=int, default=40, help="commands per moving game")
    parser.add_argument("--at-once", type=int, default=50, help="streams opened at a time")
    parser.add_argument("--timeout", type=float, default=30, help="longest wait, s")
    parser.add_argument("--floor-samples", type=int, default=400)
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
