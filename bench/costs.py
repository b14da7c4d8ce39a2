"""What a run costs: CPU ticks from /proc, the servers' SQL counts, PostgreSQL sessions."""

from __future__ import annotations

import json
import os
import pathlib
import time
import urllib.request
from dataclasses import dataclass, field

from bench.load_world import RESULTS, Postgres
from tests.daphne import start_server

TICK = os.sysconf("SC_CLK_TCK")


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
        # the idle-memory run holds its thousand lobby sockets as one account
        env = {"SOCKETS_PER_ACCOUNT": "100000"}
        self.running = start_server(
            "bench.load_site:application", count=processes, env=env, log=log
        )
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
