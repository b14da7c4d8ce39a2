"""Bot turns a second with one worker and with two, and the turns computed twice.

    DATABASE_URL=postgres://… python bench/workers.py [--games K] [--window S] [--json]

Starts K games between two computer opponents (the deckhand against the boatswain: the
cheapest levels, about 0.2 ms of thinking a command, so that the figure is the worker's
and the write path's cost, not the search's; the captain thinks ~80 ms a command), then
runs ``manage.py run_worker --job bots`` processes on them with no pause and a short
tick: one, then two, each on K fresh games. Over a fixed window it counts the turns
played (the games' ``turn_number`` going up) and the commands (``Command`` rows). A turn
computed twice is one a worker was refused (``stale_version`` in its log: another
worker had played it); a command recorded twice is two ``Command`` rows at one version.
Then it kills one of the two workers (SIGKILL, while it is playing) and counts the
games that made no progress over the next seconds: turns lost with the worker.

It uses only the services and ``run_worker --job bots``, so it runs against an older
checkout too. The database is migrated first; the bench's games still going at the end
are annulled (``--keep`` leaves them to be played). The last line printed is one JSON
object.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

FIRST, SECOND = "deckhand", "boatswain"
TICK_SECONDS = "0.05"
WARM_UP_SECONDS = 2.0  # after a worker says it runs: its first look, its connections
AFTER_KILL_SECONDS = 30.0  # the survivor plays a turn of every game within this time


def setup() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "shanghaien.settings")
    # The workers share this process's key; settings refuse to start without one.
    os.environ.setdefault("DJANGO_SECRET_KEY", secrets.token_urlsafe(50))
    import django

    django.setup()


def start_games(count: int) -> list[int]:
    """``count`` games between the two bots, started by the services (the invitation as
    a row: a bot sends none of its own, and a person's rate limits would stop a series)."""
    from django.contrib.auth import get_user_model
    from django.db import transaction

    from games.models import Invitation
    from games.services import commitments, invitations

    users = get_user_model().objects
    inviter, invited = users.get(bot_level=FIRST), users.get(bot_level=SECOND)
    games = []
    for _ in range(count):
        with transaction.atomic():
            fair = commitments.take(inviter, "", None)
            invitation = Invitation.objects.create(from_user=inviter, to_user=invited, **fair)
        games.append(invitations.do_accept_invitation(invitation.pk, invited).pk)
    return games


class Worker:
    """A ``run_worker --job bots`` process, its output in a file."""

    def __init__(self, folder: Path, name: str):
        self.log = folder / f"{name}.log"
        env = {
            **os.environ,
            "BOT_PAUSE_SECONDS": "0",
            "BOT_TICK_SECONDS": TICK_SECONDS,
            "DJANGO_LOG_LEVEL": "INFO",
            "PYTHONUNBUFFERED": "1",
        }
        with self.log.open("wb") as out:
            self.process = subprocess.Popen(
                [sys.executable, "manage.py", "run_worker", "--job", "bots", "--name", name],
                cwd=ROOT,
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
            )

    def said(self) -> str:
        return self.log.read_text(errors="replace")

    def wait_started(self, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while " running " not in self.said():
            if self.process.poll() is not None or time.monotonic() > deadline:
                sys.exit(f"the worker did not start:\n{self.said()[-3000:]}")
            time.sleep(0.05)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def refused(self) -> int:
        """Turns this worker computed that another had played already."""
        return self.said().count("stale_version")


def progress(games: list[int]) -> tuple[int, int]:
    """(turns begun, commands recorded) in ``games`` so far."""
    from django.db.models import Sum

    from games.models import Command, Game

    turns = Game.objects.filter(pk__in=games).aggregate(n=Sum("turn_number"))["n"] or 0
    return turns, Command.objects.filter(game__in=games).count()


def doubled_commands(games: list[int]) -> int:
    from django.db.models import Count

    from games.models import Command

    rows = Command.objects.filter(game__in=games).values("game", "version")
    return rows.annotate(n=Count("id")).filter(n__gt=1).count()


def versions(games: list[int]) -> dict[int, tuple[str, int]]:
    from games.models import Game

    return {
        pk: (status, v)
        for pk, status, v in Game.objects.filter(pk__in=games).values_list(
            "pk", "status", "version"
        )
    }


def run(workers: int, games: list[int], window: float, folder: Path, kill: bool) -> dict:
    """``workers`` worker processes on ``games`` for ``window`` seconds."""
    from django.db import close_old_connections

    started = [Worker(folder, f"bench-{workers}-{n}") for n in range(workers)]
    try:
        for worker in started:
            worker.wait_started()
        time.sleep(WARM_UP_SECONDS)
        close_old_connections()
        turns0, commands0 = progress(games)
        began = time.monotonic()
        time.sleep(window)
        turns1, commands1 = progress(games)
        seconds = time.monotonic() - began
        result = {
            "turns_per_s": round((turns1 - turns0) / seconds, 2),
            "commands_per_s": round((commands1 - commands0) / seconds, 2),
            "over": sum(1 for status, _ in versions(games).values() if status != "active"),
        }
        if kill:
            result.update(kill_one(started, games))
    finally:
        for worker in started:
            worker.stop()
    result["duplicates"] = sum(worker.refused() for worker in started)
    result["doubled_commands"] = doubled_commands(games)
    return result


def kill_one(started: list[Worker], games: list[int]) -> dict:
    """SIGKILL the first worker while it plays, then count the active games the other
    leaves unplayed: a turn the killed worker held and nobody played is one of them."""
    started[0].process.send_signal(signal.SIGKILL)
    started[0].process.wait()
    before = versions(games)
    deadline = time.monotonic() + AFTER_KILL_SECONDS
    while True:
        after = versions(games)
        stuck = [
            pk
            for pk, (status, version) in before.items()
            if status == "active" and after[pk][1] == version
        ]
        if not stuck or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    active = sum(status == "active" for status, _ in before.values())
    return {"lost_after_kill": len(stuck), "active_at_kill": active}


def annul(games: list[int]) -> None:
    """End the bench's games still going (annulled: no rating changes), so that no later
    worker on this database plays them. Their history stays (the log is append-only)."""
    from django.db import transaction

    from games.models import Game
    from games.services import endings

    for pk in games:
        with transaction.atomic():
            game = Game.objects.select_for_update().get(pk=pk)
            if game.status == Game.Status.ACTIVE:
                endings.end_by_server(game, "annulled", None)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40, help="games for each run (%(default)s)")
    parser.add_argument("--window", type=float, default=15.0, help="seconds counted (%(default)s)")
    parser.add_argument("--json", action="store_true", help="only the JSON line")
    parser.add_argument("--keep", action="store_true", help="leave the bench's games going")
    args = parser.parse_args()
    if not os.environ.get("DATABASE_URL"):
        sys.exit("DATABASE_URL: the database to play on (PostgreSQL: several workers)")
    setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    all_games = []
    results = {}
    with tempfile.TemporaryDirectory(prefix="bench-workers-") as folder:
        try:
            for workers in (1, 2):
                games = start_games(args.games)
                all_games += games
                results[workers] = run(workers, games, args.window, Path(folder), workers == 2)
        finally:
            if not args.keep:
                annul(all_games)
    one, two = results[1], results[2]
    figures = {
        "turns_per_s_1": one["turns_per_s"],
        "turns_per_s_2": two["turns_per_s"],
        "ratio": round(two["turns_per_s"] / one["turns_per_s"], 2) if one["turns_per_s"] else None,
        "duplicates": one["duplicates"] + two["duplicates"],
        "doubled_commands": one["doubled_commands"] + two["doubled_commands"],
        "lost_after_kill": two["lost_after_kill"],
        "active_at_kill": two["active_at_kill"],
        "commands_per_s_1": one["commands_per_s"],
        "commands_per_s_2": two["commands_per_s"],
        "games_over_1": one["over"],
        "games_over_2": two["over"],
        "games": args.games,
        "window_s": args.window,
        "levels": f"{FIRST} v {SECOND}",
        "cpus": os.cpu_count(),
    }
    if not args.json:
        for key, value in figures.items():
            print(f"{key:<20}{value}")
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
