"""The websocket clients: the floors, the two players of each game, the runs, idle memory."""

from __future__ import annotations

import asyncio
import json
import math
import pathlib
import random
import time
import uuid

from bench.costs import Server, costs
from bench.report import summary

MIN_GAP = 0.06  # seconds between two commands of one socket (the server allows 20 a second)
WAKE, CLOSED = "wake", "closed"  # what else a player's queue can hold besides frames


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
