"""The figures and the report: percentiles, the tables on stdout, the A/A comparison."""

from __future__ import annotations

import math
import os
import platform
import statistics


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
