"""Load benchmark of the move path, beside its floors, in one run.

    python bench/load.py [--games 10,50,200] [--moves 1000] [--repeat 50]
                         [--processes 2] [--paced 100] [--paced-seconds 30] [--idle 1000]

Starts Daphne (bench.asgi: the site plus an echo socket and /bench/stats) on a fresh
PostgreSQL database (shanghaien_bench) and a flushed Redis database 2, makes users and
games through the service layer, and plays them with asyncio websocket clients, two
sockets a game, each player sending random legal commands.

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
import math
import os
import pathlib
import platform
import random
import secrets
import statistics
import sys
import time
import traceback
import urllib.request
import uuid
from dataclasses import dataclass, field

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

RESULTS = ROOT / "bench" / "results"
TICK = os.sysconf("SC_CLK_TCK")
MIN_GAP = 0.06  # seconds between two commands of one socket (the server allows 20 a second)
WAKE, CLOSED = "wake", "closed"  # what else a player's queue can hold besides frames


# --- the database and the games -------------------------------------------------------


def fresh_database() -> None:
    import psycopg
    import redis

    with psycopg.connect(f"{PG_SERVER}/postgres", autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {DB_NAME} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {DB_NAME}")
    # The bench's own Redis database: no channel groups or rate-limit counts left over.
    redis.Redis.from_url(REDIS_URL).flushdb()


def setup_django() -> None:
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)


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


class Postgres:
    """One connection of this process, opened once: the statistics views and the floor."""

    def __init__(self):
        import psycopg

        self.conn = psycopg.connect(f"{PG_SERVER}/{DB_NAME}", autocommit=True)
        self.version = self.conn.info.server_version
        self.conn.execute(
            "CREATE TABLE IF NOT EXISTS bench_ping (id serial PRIMARY KEY, at timestamptz)"
        )

    def sessions(self) -> int | None:
        """Sessions ever opened on the bench database (PostgreSQL 14 and later)."""
        if self.version < 140000:
            return None
        row = self.conn.execute(
            "SELECT sessions FROM pg_stat_database WHERE datname = %s", (DB_NAME,)
        ).fetchone()
        return int(row[0])

    def commit_floor(self, count: int) -> list[float]:
        """One INSERT and its COMMIT at a time, on the open connection (autocommit off)."""
        samples = []
        self.conn.autocommit = False
        try:
            for i in range(count + 20):  # the first 20 warm up and are not kept
                t0 = time.perf_counter()
                self.conn.execute("INSERT INTO bench_ping (at) VALUES (now())")
                self.conn.commit()
                if i >= 20:
                    samples.append((time.perf_counter() - t0) * 1000)
        finally:
            self.conn.autocommit = True
        return samples

    def close(self) -> None:
        self.conn.close()


# --- what a run costs: CPU, SQL, sessions ---------------------------------------------


def _stat(pid: int) -> list[str] | None:
    """The fields of /proc/<pid>/stat after the command name (state is [0])."""
    try:
        text = pathlib.Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text.rpartition(")")[2].split()


def cpu_ticks(pid: int, children: bool = False) -> int:
    fields = _stat(pid)
    if fields is None:
        return 0
    ticks = int(fields[11]) + int(fields[12])  # utime + stime
    if children:
        ticks += int(fields[13]) + int(fields[14])  # of the children it has waited for
    return ticks


def service_ticks() -> dict[str, int | None]:
    """CPU of this machine's PostgreSQL and Redis processes (None if none runs here).

    PostgreSQL: every process, plus what its postmaster collected from the backends that
    ended (a backend that came and went within a run counts there).
    """
    comm, parent = {}, {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        pid = int(entry.name)
        try:
            comm[pid] = pathlib.Path(f"/proc/{pid}/comm").read_text().strip()
        except OSError:
            continue
        fields = _stat(pid)
        parent[pid] = int(fields[1]) if fields else 0
    postgres = [pid for pid, name in comm.items() if name == "postgres"]
    redis = [pid for pid, name in comm.items() if name.startswith("redis-server")]
    pg = None
    if postgres:
        pg = sum(cpu_ticks(pid, children=comm.get(parent[pid]) != "postgres") for pid in postgres)
    return {"postgres": pg, "redis": sum(cpu_ticks(pid) for pid in redis) if redis else None}


def machine_ticks() -> tuple[int, int]:
    """(busy, total) jiffies of all cores since boot."""
    values = [int(v) for v in pathlib.Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = values[3] + values[4]  # idle + iowait
    return sum(values[:8]) - idle, sum(values[:8])


def server_stats(url: str) -> dict:
    with urllib.request.urlopen(url + "/bench/stats", timeout=10) as response:
        return json.loads(response.read())


@dataclass
class Snapshot:
    servers: list[int]
    services: dict
    client: float
    machine: tuple[int, int]
    sessions: int | None
    sql: list[dict]
    at: float = field(default_factory=time.perf_counter)


class Server:
    """The Daphne processes of one configuration, and what to read from them."""

    def __init__(self, processes: int, pg: Postgres):
        self.pg = pg
        log = RESULTS / ("daphne.log" if processes == 1 else f"daphne-{processes}.log")
        self.running = start_server("bench.asgi:application", count=processes, log=log)
        self.urls = self.running.urls
        self.pids = [p.pid for p in self.running.processes]

    def snapshot(self) -> Snapshot:
        times = os.times()
        return Snapshot(
            servers=[cpu_ticks(pid) for pid in self.pids],
            services=service_ticks(),
            client=times.user + times.system,
            machine=machine_ticks(),
            sessions=self.pg.sessions(),
            sql=[server_stats(url) for url in self.urls],
        )

    def quiesce(self, limit: float = 15) -> None:
        """Wait until the servers send no more SQL (closing sockets writes a little)."""
        deadline = time.monotonic() + limit
        last = None
        while time.monotonic() < deadline:
            now = [s["statements"] + s["commits"] for s in map(server_stats, self.urls)]
            if now == last:
                return
            last = now
            time.sleep(0.4)

    def stop(self) -> None:
        self.running.stop()


def costs(before: Snapshot, after: Snapshot, moves: int) -> dict:
    """What the moves of one run cost, per move."""
    per = max(moves, 1)

    def ms(ticks) -> float | None:
        return None if ticks is None else round(ticks * 1000 / TICK / per, 2)

    def service(name: str) -> float | None:
        a, b = before.services[name], after.services[name]
        return None if a is None or b is None else ms(b - a)

    pairs = list(zip(before.sql, after.sql, strict=True))
    statements = sum(b["statements"] - a["statements"] for a, b in pairs)
    commits = sum(b["commits"] - a["commits"] for a, b in pairs)
    rollbacks = sum(b["rollbacks"] - a["rollbacks"] for a, b in pairs)
    kinds: dict[str, int] = {}
    for a, b in pairs:
        for kind, n in b["by_kind"].items():
            kinds[kind] = kinds.get(kind, 0) + n - a["by_kind"].get(kind, 0)
    busy = after.machine[0] - before.machine[0]
    total = after.machine[1] - before.machine[1]
    ours = sum(after.servers) - sum(before.servers) + (after.client - before.client) * TICK
    for name in ("postgres", "redis"):
        if before.services[name] is not None and after.services[name] is not None:
            ours += after.services[name] - before.services[name]
    sessions = None
    if before.sessions is not None and after.sessions is not None:
        sessions = round((after.sessions - before.sessions) / per, 2)
    return {
        "server_cpu_ms": ms(sum(after.servers) - sum(before.servers)),
        "server_cpu_ms_by_process": [
            ms(b - a) for a, b in zip(before.servers, after.servers, strict=True)
        ],
        "postgres_cpu_ms": service("postgres"),
        "redis_cpu_ms": service("redis"),
        "client_cpu_ms": round((after.client - before.client) * 1000 / per, 2),
        "machine_busy_pct": round(100 * busy / total, 1) if total else None,
        "other_cpu_ms": ms(max(0, round(busy - ours))),
        "statements": round(statements / per, 2),
        "statements_by_kind": {
            k: round(n / per, 2) for k, n in sorted(kinds.items(), key=lambda kv: -kv[1]) if n
        },
        "commits": round(commits / per, 2),
        "rollbacks": round(rollbacks / per, 2),
        "new_pg_sessions": sessions,
    }


# --- figures --------------------------------------------------------------------------


def summary(samples_ms: list[float]) -> dict:
    if not samples_ms:
        return {"n": 0}
    ordered = sorted(samples_ms)

    def pct(p: float) -> float:
        return round(ordered[min(len(ordered) - 1, math.ceil(p / 100 * len(ordered)) - 1)], 2)

    return {
        "n": len(ordered),
        "p50": pct(50),
        "p95": pct(95),
        "p99": pct(99),
        "max": round(ordered[-1], 2),
        "mean": round(statistics.fmean(ordered), 2),
    }


# --- websocket clients ----------------------------------------------------------------


async def open_socket(url: str, path: str, cookie: str):
    from websockets.asyncio.client import connect

    return await connect(
        url.replace("http", "ws", 1) + path,
        origin=url,
        additional_headers={"Cookie": cookie},
        open_timeout=60,
        ping_interval=None,  # no keepalive frames among the measured ones
        max_size=2**22,
    )


async def ping_floor(url: str, cookie: str, count: int) -> list[float]:
    """Lobby socket ping/pong, 50 a socket (under its burst of 60 frames)."""
    samples = []
    per_socket = 50
    for _ in range(math.ceil(count / per_socket)):
        async with await open_socket(url, "/ws/lobby/", cookie) as ws:
            await ws.recv()  # hello
            for i in range(per_socket + 5):  # the first 5 warm up
                t0 = time.perf_counter()
                await ws.send('{"type": "ping"}')
                answer = json.loads(await asyncio.wait_for(ws.recv(), 10))
                if answer.get("type") != "pong":
                    raise RuntimeError(f"the lobby socket answered a ping with {answer}")
                if i >= 5:
                    samples.append((time.perf_counter() - t0) * 1000)
    return samples


async def echo_floor(url: str, cookie: str, count: int) -> list[float]:
    samples = []
    async with await open_socket(url, "/ws/bench/echo/", cookie) as ws:
        for i in range(count + 20):
            t0 = time.perf_counter()
            await ws.send('{"type": "ping", "client_id": "x"}')
            await asyncio.wait_for(ws.recv(), 10)
            if i >= 20:
                samples.append((time.perf_counter() - t0) * 1000)
    return samples


class Table:
    """One game as its two players' clients see it."""

    def __init__(self, game, urls, moves, rng, timeout, pace=None):
        self.game_id, *self.cookies = game
        self.urls = urls  # per seat
        self.moves = moves  # commands in all (None: until the deadline)
        self.rng = rng
        self.timeout = timeout
        self.pace = pace  # paced: seconds between a game's moves
        self.deadline = None  # paced: no command leaves after this
        self.next_due = 0.0
        self.sockets = [None, None]
        self.queues = (asyncio.Queue(), asyncio.Queue())
        self.readers = []
        self.sent: dict[str, tuple[float, int]] = {}  # client id -> (time, seat)
        self.acked: dict[str, tuple[float, int]] = {}  # client id -> (time, version)
        self.arrivals: tuple[list, list] = ([], [])  # per seat: (version, time) of each state
        self.latest: list[dict | None] = [None, None]  # per seat: the last state's view
        self.latest_version = [-1, -1]
        self.attempts = 0
        # Sent and not yet acked: the next player may move on the opponent's state before
        # the previous mover has its ack, so there can be two.
        self.in_flight: set[str] = set()
        self.top = 0  # the highest version acked (or found at the start)
        self.stopping = False  # no more commands
        self.final = None  # the version both players must have seen to be done
        self.failure = None
        self.finished = False  # the game itself ended
        self.capped = 0  # commands held back by MIN_GAP
        self.late: list[float] = []  # paced: how long after its time each command left

    async def connect(self, seat: int, gate: asyncio.Semaphore) -> None:
        async with gate:
            ws = await open_socket(
                self.urls[seat], f"/ws/games/{self.game_id}/", self.cookies[seat]
            )
            self.sockets[seat] = ws
            self.readers.append(asyncio.create_task(self._read(ws, self.queues[seat])))
            item = await asyncio.wait_for(self.queues[seat].get(), 60)
        if item in (WAKE, CLOSED):
            raise RuntimeError(f"game {self.game_id}: the socket closed before its first state")
        message = json.loads(item[1])
        if message["type"] != "state":
            raise RuntimeError(f"game {self.game_id}: the socket began with {message}")
        self._state(seat, item[0], message)
        self.top = max(self.top, message["version"])

    @staticmethod
    async def _read(ws, queue: asyncio.Queue) -> None:
        try:
            async for raw in ws:
                queue.put_nowait((time.perf_counter(), raw))
        except Exception:  # closed with an error: the same as closed for the player
            pass
        queue.put_nowait(CLOSED)

    def _state(self, seat: int, at: float, message: dict) -> None:
        version = message["version"]
        self.arrivals[seat].append((version, at))
        if version >= self.latest_version[seat]:
            self.latest_version[seat] = version
            self.latest[seat] = message["game"]["view"]
        if message["game"]["view"]["status"] == "finished":
            self.finished = True
            self.stop()

    def stop(self) -> None:
        self.stopping = True
        self.settle()

    def settle(self) -> None:
        """Once no command may leave and none is on its way, the final version is known."""
        if self.stopping and not self.in_flight and self.final is None:
            self.final = self.top
            self.wake()

    def fail(self, why: str) -> None:
        if self.failure is None:
            self.failure = why
        self.stopping = True
        self.wake()

    def wake(self) -> None:
        for queue in self.queues:
            queue.put_nowait(WAKE)

    def done(self, seat: int, pending) -> bool:
        if self.failure is not None:
            return True
        return (
            pending is None and self.final is not None and (self.latest_version[seat] >= self.final)
        )

    async def play(self, seat: int) -> None:
        ws, queue = self.sockets[seat], self.queues[seat]
        pending = None  # the client id of this player's command on its way
        mine = 0  # the version of this player's last ack
        last_sent = -math.inf
        held = False  # the next command waits for MIN_GAP, not for the game
        while not self.done(seat, pending):
            view = self.latest[seat]
            can_send = (
                not self.stopping
                and pending is None
                and view is not None
                and view["status"] != "finished"
                and view["turn"] == "me"
                and self.latest_version[seat] >= mine
            )
            wait = self.timeout
            if can_send:
                now = time.perf_counter()
                due = max(last_sent + MIN_GAP, self.next_due)
                if self.deadline is not None and max(due, now) >= self.deadline:
                    self.stop()
                    continue
                if due > now:
                    held = held or due > self.next_due
                    wait = due - now
                else:
                    self.capped += held
                    held = False
                    pending = uuid.uuid4().hex
                    last_sent = await self._send(seat, ws, view, pending)
                    continue
            try:
                item = await asyncio.wait_for(queue.get(), wait)
            except TimeoutError:
                if can_send:
                    continue  # its time has come
                waited = "its ack" if pending else "a state"
                self.fail(f"timeout: waited {self.timeout:g} s for {waited}")
                return
            if item == WAKE:
                continue
            if item == CLOSED:
                self.fail("closed: the server closed a game socket")
                return
            at, raw = item
            message = json.loads(raw)
            kind = message["type"]
            if kind == "state":
                self._state(seat, at, message)
            elif kind == "ack" and message.get("client_id") == pending:
                self.acked[pending] = (at, message["version"])
                mine = message["version"]
                self.top = max(self.top, mine)
                self.in_flight.discard(pending)
                pending = None
                self.settle()
            elif kind == "error":
                self.fail(f"error: {message.get('code')}: {message.get('message')}")
                return

    async def _send(self, seat: int, ws, view: dict, client_id: str) -> float:
        legal = [c for c in view["legal"] if c["type"] not in ("resign", "abort")]
        if not legal:
            self.fail("no legal command offered on the player's turn")
            return time.perf_counter()
        frame = json.dumps(
            {
                "type": "command",
                "command": self.rng.choice(legal),
                "expected_version": self.latest_version[seat],
                "client_id": client_id,
            }
        )
        now = time.perf_counter()
        if self.pace is not None:
            self.late.append(max(0.0, now - self.next_due))
            self.next_due = now + self.pace * self.rng.uniform(0.9, 1.1)
        self.sent[client_id] = (now, seat)
        self.in_flight.add(client_id)
        self.attempts += 1
        if self.moves is not None and self.attempts >= self.moves:
            self.stopping = True  # the final version comes with this command's ack
        await ws.send(frame)
        return now

    def latencies(self) -> tuple[list[float], list[float], int]:
        """(ack ms, push ms, commands sent and never acked)."""
        acks, pushes, lost = [], [], 0
        for client_id, (t0, seat) in self.sent.items():
            if client_id not in self.acked:
                lost += 1
                continue
            t_ack, version = self.acked[client_id]
            acks.append((t_ack - t0) * 1000)
            seen = [t for v, t in self.arrivals[1 - seat] if v >= version and t >= t0]
            if seen:
                pushes.append((min(seen) - t0) * 1000)
        return acks, pushes, lost


async def play_games(
    server: Server,
    games: list,
    *,
    moves: int | None,
    timeout: float,
    seed: int,
    pace: float | None = None,
    seconds: float | None = None,
) -> dict:
    """Connect every socket, then play; the costs cover the moves alone."""
    urls = server.urls
    rng = random.Random(seed)
    tables = [
        Table(
            game,
            [urls[(i + seat) % len(urls)] for seat in (0, 1)],  # two processes: one each
            moves,
            random.Random(rng.random()),
            timeout,
            pace,
        )
        for i, game in enumerate(games)
    ]
    gate = asyncio.Semaphore(20)  # handshakes a few at a time, not a storm
    await asyncio.gather(*(t.connect(seat, gate) for t in tables for seat in (0, 1)))
    server.quiesce(limit=5)
    before = server.snapshot()
    started = time.perf_counter()
    if pace is not None:
        for table in tables:
            table.deadline = started + seconds
            table.next_due = started + rng.uniform(0, pace)  # spread, not in lockstep
    await asyncio.gather(*(t.play(seat) for t in tables for seat in (0, 1)))
    ended = time.perf_counter()
    after = server.snapshot()
    for table in tables:
        for reader in table.readers:
            reader.cancel()
    await asyncio.gather(*(ws.close() for t in tables for ws in t.sockets if ws is not None))
    await asyncio.to_thread(server.quiesce)

    acks, pushes, lost, failures = [], [], 0, {}
    for table in tables:
        a, p, n = table.latencies()
        acks += a
        pushes += p
        lost += n
        if table.failure:
            failures[table.failure] = failures.get(table.failure, 0) + 1
    moved = len(acks)
    timeouts = sum(n for why, n in failures.items() if why.startswith("timeout"))
    row = {
        "games": len(games),
        "processes": len(urls),
        "moves": moved,
        "seconds": round(ended - started, 2),
        "moves_per_s": round(moved / (ended - started), 1),
        "ack_ms": summary(acks),
        "push_ms": summary(pushes),
        "errors": sum(failures.values()) - timeouts,
        "timeouts": timeouts,
        "unacked_commands": lost,
        "missing_pushes": moved - len(pushes),
        "failures": failures,
        "games_finished": sum(t.finished for t in tables),
        "commands_held_by_gap": sum(t.capped for t in tables),
        "per_move": costs(before, after, moved),
    }
    if pace is not None:
        late = [s * 1000 for t in tables for s in t.late]
        row["paced"] = {
            "interval_s": pace,
            "seconds": seconds,
            "offered_moves_per_s": round(len(games) / pace, 1),
            "late_ms": summary(late),
        }
    else:
        row["moves_per_game"] = moves
    return row


async def idle_memory(server: Server, cookie: str, count: int) -> dict:
    def rss_kib(pid: int) -> int:
        for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        return 0

    pid, url = server.pids[0], server.urls[0]
    before = rss_kib(pid)
    sockets = []
    for _ in range(count):  # one at a time: idle sockets, not a handshake storm
        ws = await open_socket(url, "/ws/lobby/", cookie)
        await ws.recv()  # hello
        sockets.append(ws)
    await asyncio.sleep(2)
    after = rss_kib(pid)
    await asyncio.gather(*(ws.close() for ws in sockets))
    return {
        "connections": count,
        "rss_before_mib": round(before / 1024, 1),
        "rss_after_mib": round(after / 1024, 1),
        "kib_per_connection": round((after - before) / count, 1),
    }


# --- the report -----------------------------------------------------------------------


def fmt(value, digits: int = 1) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.{digits}f}" if abs(value) < 100 or digits == 0 else f"{value:.0f}"
    return str(value)


def print_report(report: dict) -> None:
    floors = report["floors"]
    floor = floors["move_floor_ms"]
    print(
        f"\nPython {platform.python_version()}, {os.cpu_count()} cores, PostgreSQL "
        f"{report['postgres_version']}, Redis; times in milliseconds"
    )
    print("\nFloors (idle server, one round trip at a time)      n     p50     p95     p99")
    for key, label in (
        ("ping_ms", "websocket ping/pong (lobby socket)"),
        ("commit_ms", "INSERT + COMMIT, persistent psycopg connection"),
        ("echo_ms", "bench echo socket (Daphne + Channels)"),
    ):
        s = floors[key]
        figures = " ".join(f"{fmt(s[p], 2):>7}" for p in ("p50", "p95", "p99"))
        print(f"  {label:<47} {s['n']:>4} {figures}")
    print(f"  floor of a move = ping p50 + commit p50 = {floor:.2f} ms")

    runs = report["runs"]
    print("\nMoves: latency (closed loop: each player moves as soon as it may; paced: ~1/s a game)")
    print(
        f"  {'run':<18} {'proc':>4} {'games':>5} {'moves':>5} {'moves/s':>7} | {'ack p50':>7} "
        f"{'p95':>6} {'p99':>6} | {'push p50':>8} {'p95':>6} {'p99':>6} | "
        f"{'push/floor':>10} | {'err':>3} {'tmo':>3}"
    )
    for r in runs:
        a, p = r["ack_ms"], r["push_ms"]
        ratio = f"{p['p50'] / floor:.0f}x" if p.get("p50") and floor else "-"
        print(
            f"  {r['label']:<18} {r['processes']:>4} {r['games']:>5} {r['moves']:>5} "
            f"{fmt(r['moves_per_s']):>7} | {fmt(a.get('p50'), 0):>7} {fmt(a.get('p95'), 0):>6} "
            f"{fmt(a.get('p99'), 0):>6} | {fmt(p.get('p50'), 0):>8} {fmt(p.get('p95'), 0):>6} "
            f"{fmt(p.get('p99'), 0):>6} | {ratio:>10} | {r['errors']:>3} {r['timeouts']:>3}"
        )
    print("  (ack: send -> the actor's ack; push: send -> the opponent's new state)")

    print("\nMoves: cost per move (CPU ms per move, by process; busy: the whole machine)")
    print(
        f"  {'run':<18} {'server':>7} {'postgres':>8} {'redis':>6} {'client':>6} {'other':>6} "
        f"{'busy%':>6} | {'SQL':>5} {'commits':>7} {'new PG sessions':>15}"
    )
    for r in runs:
        c = r["per_move"]
        print(
            f"  {r['label']:<18} {fmt(c['server_cpu_ms']):>7} {fmt(c['postgres_cpu_ms']):>8} "
            f"{fmt(c['redis_cpu_ms']):>6} {fmt(c['client_cpu_ms']):>6} "
            f"{fmt(c['other_cpu_ms']):>6} {fmt(c['machine_busy_pct']):>6} | "
            f"{fmt(c['statements']):>5} {fmt(c['commits']):>7} {fmt(c['new_pg_sessions'], 2):>15}"
        )
    print(
        "  (server: the Daphne processes; postgres and redis: all of theirs on this machine;"
        " other: the rest of the machine)"
    )
    for r in runs:
        split = r["per_move"]["server_cpu_ms_by_process"]
        if len(split) > 1:
            each = " + ".join(fmt(ms) for ms in split)
            print(f"  {r['label']}: server CPU ms/move by process: {each}")
    print("  SQL per move by kind:")
    for r in runs:
        parts = ", ".join(f"{k} {v:g}" for k, v in r["per_move"]["statements_by_kind"].items())
        print(f"    {r['label']:<18} {parts or '-'}")
    for r in runs:
        if "paced" in r:
            pc = r["paced"]
            late = pc["late_ms"]
            print(
                f"  {r['label']}: offered {pc['offered_moves_per_s']} moves/s, carried "
                f"{r['moves_per_s']}; commands left late by p50 {fmt(late.get('p50'), 0)} ms, "
                f"p95 {fmt(late.get('p95'), 0)} ms (a game waits for its state)"
            )

    aa = report.get("aa")
    if aa:
        print(f"\nA/A: {aa['label']} twice in a row (difference = second / first - 1)")
        for name, first, second, diff in aa["metrics"]:
            print(f"  {name:<22} {fmt(first):>8} {fmt(second):>8} {diff:>8}")

    memory = report.get("idle_memory")
    if memory:
        print(
            f"\nIdle memory: {memory['connections']} lobby sockets on one process: RSS "
            f"{memory['rss_before_mib']} -> {memory['rss_after_mib']} MiB, "
            f"{memory['kib_per_connection']} KiB per connection"
        )


def compare(label: str, first: dict, second: dict) -> dict:
    metrics = []
    for name, get in (
        ("moves/s", lambda r: r["moves_per_s"]),
        ("ack p50 ms", lambda r: r["ack_ms"].get("p50")),
        ("ack p95 ms", lambda r: r["ack_ms"].get("p95")),
        ("push p50 ms", lambda r: r["push_ms"].get("p50")),
        ("push p95 ms", lambda r: r["push_ms"].get("p95")),
        ("server CPU ms/move", lambda r: r["per_move"]["server_cpu_ms"]),
        ("postgres CPU ms/move", lambda r: r["per_move"]["postgres_cpu_ms"]),
        ("SQL/move", lambda r: r["per_move"]["statements"]),
        ("new PG sessions/move", lambda r: r["per_move"]["new_pg_sessions"]),
    ):
        a, b = get(first), get(second)
        diff = f"{(b / a - 1) * 100:+.1f}%" if a and b is not None else "-"
        metrics.append((name, a, b, diff))
    return {"label": label, "metrics": metrics}


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
