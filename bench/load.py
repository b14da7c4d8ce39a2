"""Load benchmark of the move path, beside bare-stack baselines.

    python bench/load.py [--games 10,50,200] [--moves 10] [--idle 1000] [--url URL]

Starts one Daphne process on a fresh PostgreSQL database (shanghaien_bench) and Redis
(database 2), creates users and games through the service layer, and plays N games at
once with asyncio websocket clients sending random legal commands. For each command it
measures the time from sending to the actor's `ack`, and to the opponent's pushed
`state`. Baselines on the same server and the same client: an echo consumer (no game,
no database) and a consumer that only commits one insert. Then the server's resident
memory with idle connected websockets. Results: a table, and bench/results/load.json.
With --url, an already running server (serving bench.asgi:application on the same
database) is measured instead of a new one.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import pathlib
import platform
import random
import secrets
import statistics
import sys
import time
import uuid

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.daphne import start_server  # noqa: E402 (found once ROOT is on the path)

DB_NAME = "shanghaien_bench"
PG_SERVER = os.environ.get("BENCH_PG", "postgres://postgres@127.0.0.1:5432")
REDIS_URL = os.environ.get("BENCH_REDIS", "redis://127.0.0.1:6379/2")
os.environ["DATABASE_URL"] = f"{PG_SERVER}/{DB_NAME}"
os.environ["REDIS_URL"] = REDIS_URL
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "shanghaien.settings")
os.environ.setdefault("DJANGO_LOG_LEVEL", "WARNING")
os.environ.setdefault("DJANGO_SECRET_KEY", secrets.token_urlsafe(50))


def fresh_database() -> None:
    import psycopg

    with psycopg.connect(f"{PG_SERVER}/postgres", autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {DB_NAME} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {DB_NAME}")


def setup_django() -> None:
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "CREATE TABLE IF NOT EXISTS bench_ping (id serial PRIMARY KEY, at timestamptz)"
        )


def rss_kib(pid: int) -> int:
    for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def make_games(count: int, tag: str) -> list[tuple[int, str, str]]:
    """``count`` games through the service layer; (game id, cookie of seat 0, of seat 1)."""
    from django.contrib.auth import get_user_model
    from django.test import Client

    from games.services import invitations

    users = get_user_model().objects
    games = []
    for i in range(count):
        a = users.create_user(f"{tag}a{i}", password=None)
        b = users.create_user(f"{tag}b{i}", password=None)
        game = invitations.do_accept_invitation(invitations.do_invite(a, to=b.username).pk, b)
        cookies = []
        for user in (a, b):
            client = Client()
            client.force_login(user)
            cookies.append(f"sessionid={client.cookies['sessionid'].value}")
        games.append((game.pk, cookies[0], cookies[1]))
    return games


def summary(samples_ms: list[float]) -> dict:
    if not samples_ms:
        return {"n": 0}
    ordered = sorted(samples_ms)

    def pct(p: float) -> float:
        return round(ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))], 2)

    return {
        "n": len(ordered),
        "p50": pct(50),
        "p95": pct(95),
        "p99": pct(99),
        "max": round(ordered[-1], 2),
        "mean": round(statistics.fmean(ordered), 2),
    }


async def play_game(
    base: str,
    game: tuple[int, str, str],
    moves: int,
    rng: random.Random,
    out: dict,
    gate: asyncio.Semaphore,
    go: asyncio.Event,
) -> None:
    """Both players of one game on their own sockets; ``moves`` commands in all.

    Sockets connect a few at a time (``gate``) and wait for ``go``: the figures are about
    moves, not about a storm of handshakes.
    """
    from websockets.asyncio.client import connect

    game_id, *cookies = game
    url = base.replace("http", "ws") + f"/ws/games/{game_id}/"
    arrivals: list[dict[int, float]] = [{}, {}]
    sent: dict[str, tuple[float, int]] = {}  # client_id -> (time, seat)
    acked: dict[str, tuple[float, int]] = {}  # client_id -> (time, version)
    done = asyncio.Event()

    async def player(seat: int) -> None:
        async with gate:
            ws = await connect(
                url,
                origin=base,
                additional_headers={"Cookie": cookies[seat]},
                open_timeout=60,
                max_size=2**20,
            )
            first = await ws.recv()
        out["connected"] += 1
        await go.wait()
        pending = None
        queued = [first]
        async with ws:
            while not done.is_set():
                if queued:
                    raw = queued.pop()
                else:
                    try:
                        raw = await asyncio.wait_for(ws.recv(), timeout=60)
                    except TimeoutError:
                        out["errors"] += 1
                        done.set()
                        return
                now = time.perf_counter()
                message = json.loads(raw)
                kind = message["type"]
                if kind == "ack":
                    acked[message["client_id"]] = (now, message["version"])
                    pending = None
                    if len(acked) >= moves:
                        done.set()
                elif kind == "error":
                    out["errors"] += 1
                    pending = None
                elif kind == "state":
                    arrivals[seat].setdefault(message["version"], now)
                    view = message["game"]["view"]
                    if view["status"] == "finished":
                        done.set()
                    elif view["turn"] == "me" and pending is None and len(sent) < moves:
                        legal = [c for c in view["legal"] if c["type"] not in ("resign", "abort")]
                        client_id = uuid.uuid4().hex
                        pending = client_id
                        sent[client_id] = (time.perf_counter(), seat)
                        await ws.send(
                            json.dumps(
                                {
                                    "type": "command",
                                    "command": rng.choice(legal),
                                    "expected_version": message["version"],
                                    "client_id": client_id,
                                }
                            )
                        )

    await asyncio.gather(player(0), player(1))
    for client_id, (t0, seat) in sent.items():
        if client_id not in acked:
            continue
        t_ack, version = acked[client_id]
        out["ack"].append((t_ack - t0) * 1000)
        pushed = arrivals[1 - seat].get(version)
        if pushed is None:  # a later state covered it
            later = [t for v, t in arrivals[1 - seat].items() if v >= version]
            pushed = min(later) if later else None
        if pushed is not None:
            out["push"].append((pushed - t0) * 1000)
        out["commands"] += 1


async def round_trips(base: str, path: str, cookie: str, count: int, out: list) -> None:
    from websockets.asyncio.client import connect

    async with connect(
        base.replace("http", "ws") + path,
        origin=base,
        additional_headers={"Cookie": cookie},
        open_timeout=60,
    ) as ws:
        for _ in range(count):
            t0 = time.perf_counter()
            await ws.send(json.dumps({"type": "ping", "client_id": "x"}))
            await ws.recv()
            out.append((time.perf_counter() - t0) * 1000)


async def measure(base: str, games: list, moves: int) -> dict:
    out = {"ack": [], "push": [], "commands": 0, "errors": 0, "connected": 0}
    rng = random.Random(len(games))
    gate, go = asyncio.Semaphore(20), asyncio.Event()
    tasks = [asyncio.create_task(play_game(base, g, moves, rng, out, gate, go)) for g in games]
    while out["connected"] < 2 * len(games):
        if any(t.done() for t in tasks):
            await asyncio.gather(*tasks)  # raises what went wrong
        await asyncio.sleep(0.05)
    started = time.perf_counter()
    go.set()
    await asyncio.gather(*tasks)
    wall = time.perf_counter() - started
    echo, insert = [], []
    cookie = games[0][1]
    await asyncio.gather(
        *(round_trips(base, "/ws/bench/echo/", cookie, moves, echo) for _ in games)
    )
    await asyncio.gather(
        *(round_trips(base, "/ws/bench/insert/", cookie, moves, insert) for _ in games)
    )
    return {
        "games": len(games),
        "commands": out["commands"],
        "errors": out["errors"],
        "seconds": round(wall, 2),
        "moves_per_s": round(out["commands"] / wall, 1),
        "ack_ms": summary(out["ack"]),
        "push_ms": summary(out["push"]),
        "echo_ms": summary(echo),
        "insert_ms": summary(insert),
    }


async def idle_memory(base: str, pid: int, cookie: str, count: int) -> dict:
    from websockets.asyncio.client import connect

    before = rss_kib(pid)
    sockets = []
    for _ in range(count):  # one at a time: idle sockets, not a handshake storm
        ws = await connect(
            base.replace("http", "ws") + "/ws/lobby/",
            origin=base,
            additional_headers={"Cookie": cookie},
            open_timeout=60,
        )
        await ws.recv()  # hello
        sockets.append(ws)
    await asyncio.sleep(2)
    after = rss_kib(pid)
    for ws in sockets:
        await ws.close()
    return {
        "connections": count,
        "rss_before_mib": round(before / 1024, 1),
        "rss_after_mib": round(after / 1024, 1),
        "kib_per_connection": round((after - before) / count, 1),
    }


def ratio(ours: dict, base: dict) -> str:
    if not ours.get("n") or not base.get("n") or not base["p50"]:
        return "-"
    return f"{ours['p50'] / base['p50']:.1f}x"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default="10,50,200")
    parser.add_argument("--moves", type=int, default=10, help="commands per game")
    parser.add_argument("--idle", type=int, default=1000, help="idle sockets for memory")
    parser.add_argument("--url", help="measure a running server instead of starting one")
    parser.add_argument("--out", default=str(ROOT / "bench" / "results" / "load.json"))
    args = parser.parse_args()
    sizes = [int(n) for n in args.games.split(",")]

    fresh_database()
    setup_django()
    servers = None
    if args.url:
        base, pid = args.url.rstrip("/"), None
    else:
        port = 8765
        log = ROOT / "bench" / "results" / "daphne.log"
        servers = start_server("bench.asgi:application", port=port, log=log)
        base, pid = f"http://127.0.0.1:{port}", servers.processes[0].pid
    try:
        rows = []
        for n in sizes:
            games = make_games(n, f"n{n}")
            rows.append(asyncio.run(measure(base, games, args.moves)))
            print(f"  N={n}: done", flush=True)
        memory = None
        if pid and args.idle:
            cookie = make_games(1, "idle")[0][1]
            memory = asyncio.run(idle_memory(base, pid, cookie, args.idle))
    finally:
        if servers is not None:
            servers.stop()

    print(
        f"\nPython {platform.python_version()}, {os.cpu_count()} cores; one Daphne process, "
        f"PostgreSQL + Redis; {args.moves} commands per game"
    )
    print(
        f"{'games':>5} {'cmds':>5} {'moves/s':>8} {'err':>4} | {'ack p50':>8} {'p95':>7} "
        f"{'p99':>7} {'max':>7} | {'push p50':>8} {'p95':>7} {'p99':>7} {'max':>7} | "
        f"{'echo p50':>8} {'insert p50':>10} | {'ack/echo':>8} {'ack/insert':>10}"
    )
    for r in rows:
        a, p = r["ack_ms"], r["push_ms"]
        print(
            f"{r['games']:>5} {r['commands']:>5} {r['moves_per_s']:>8} {r['errors']:>4} | "
            f"{a.get('p50', '-'):>8} {a.get('p95', '-'):>7} {a.get('p99', '-'):>7} "
            f"{a.get('max', '-'):>7} | {p.get('p50', '-'):>8} {p.get('p95', '-'):>7} "
            f"{p.get('p99', '-'):>7} {p.get('max', '-'):>7} | {r['echo_ms'].get('p50', '-'):>8} "
            f"{r['insert_ms'].get('p50', '-'):>10} | {ratio(a, r['echo_ms']):>8} "
            f"{ratio(a, r['insert_ms']):>10}"
        )
    print("(milliseconds; ack: send -> the actor's ack; push: send -> the opponent's new state)")
    if memory:
        print(
            f"\nIdle memory: {memory['connections']} lobby sockets: RSS "
            f"{memory['rss_before_mib']} -> {memory['rss_after_mib']} MiB, "
            f"{memory['kib_per_connection']} KiB per connection"
        )
    out = pathlib.Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"rows": rows, "idle_memory": memory, "moves": args.moves}, indent=2))
    print(f"written to {out}")


if __name__ == "__main__":
    main()
