"""What every worker job and every history page costs on a site with years of history,
paired against a near-empty database in one run, with an A/A pair to show the noise.

    make bench-growth                     # BENCH_PG points at another server
    python bench/growth.py --only small   # a quick run on the near-empty database alone
    python bench/growth.py --scale 0.1    # a tenth of the large database
    python bench/growth.py --skip-sockets --skip-workers --keep
    BENCH_GROWTH_DB=mine python bench/growth.py   # databases mine_small and mine_large

The large database: 20,000 players, 200,000 finished games (rated ones with their rating
changes, an analysis each), 2,000 active games (a few with a computer opponent), 1,000,000
notifications done, and one player (``player1``) in about 7,500 of the games, about 70 of
them active. The near-empty one has the same shape with 80 players, 20 finished games and
200 active ones (enough to make the same work due on both).

Both also hold tournaments (``bench/tournament_fill.py``), written once the database is
at the latest schema: on the large one 100 running tournaments of 64 players (groups
stages, knock-out rounds, and ``2 * DUE`` knock-outs whose round of 64 waits for its last
game) with their entries, matches, games and standings, 20 open for sign-up, 40 finished
and 10 cancelled; on the small one the same kinds, one or two of each but the ready
knock-outs (as many: the work made due must be the same). ``player1`` and ``player2``
play in none, so the history pages stay what they were.

The rows are built at the schema of an older release (``OLD_TARGETS``) with Django's
historical models, so that the same benchmark runs on that release and on later ones:
a few dozen games are played by the rules engine (a random legal player) and copied in SQL
(``INSERT … SELECT`` over ``generate_series``), each copy given its own players and
times. Then ``migrate`` brings the database to the checkout's latest schema: the time it
takes (the backfills of newer migrations on the large database) is one of the figures.

Each database is then measured twice, in the order small, large, small, large, each in a
fresh process: the second pass against the first (A/A) shows what noise is. Per pass:

- the floor: a ping and one committed INSERT on a kept connection;
- every job of ``games.jobs.JOBS`` with nothing due (after one warm-up round, whose
  queued emails are marked done): the median time of a round, its statements, and the
  buffers (shared hit + read) of its statements re-run under EXPLAIN (ANALYZE, BUFFERS);
- every history page, the search and the friends page (the heavy player follows 50
  players, made at the first pass) through ``django.test.Client`` as the heaviest player
  (the profile also as someone else), and the tournament pages (the list; a groups stage
  and a knock-out round as one of their players, the groups as a visitor; the API's view
  as the player): the process CPU time of a request (median), its statements and their
  buffers, its status;
- the jobs again with ``DUE`` items of work made due (``make_due``): one round's time;
  for the tournaments' stage check, twice: ``DUE`` tournaments due with nothing to do, and
  ``DUE`` whose stage just ended (the check draws and starts the next round).

Then, when the checkout has them, ``bench/workers.py`` (bot turns per second with one and
two workers, on the large database) and ``bench/socket_load.py --json`` run as subprocesses.
The report ends with the targets, each passed or failed; all figures go to
``bench/results/growth.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time
import warnings
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import tournament_fill  # noqa: E402
from bench.tournament_fill import TOURNAMENT_BASE  # noqa: E402

# The schema the rows are written at: the release before the growth work. Every other app
# is migrated to its latest.
OLD_TARGETS = {
    "accounts": "0012_user_bots_index",
    "games": "0010_provably_fair_seeds",
    "ratings": "0002_rating_change_opponent",
    "moderation": "0002_translatable_labels",
}

SIZES = {
    # The same pages as on the large database for player1 (a full page of 50 finished
    # games, about 70 under way), with next to no history around them: a page that costs
    # more on the large database pays for the history, not for what it shows.
    "small": {"users": 80, "finished": 120, "active": 280, "done": 100, "heavy_every": (2, 4)},
    "large": {
        "users": 20_000,
        "finished": 200_000,
        "active": 2_000,
        "done": 1_000_000,
        # player1 sits in every 27th finished and every 28th active game: ~7,400 + ~70
        "heavy_every": (27, 28),
    },
}
DIGEST_EVERY = 4  # every fourth player asked for the daily digest
RATED_EVERY = 10  # every tenth finished game is a casual one
USER_BASE, FINISHED_BASE, ACTIVE_BASE = 100_000, 1_000_000, 5_000_000  # explicit ids
TEMPLATES_FINISHED, TEMPLATES_ACTIVE = 40, 20

# Items of work made due for each job in each pass (twice per database): the cost of a
# round with them should follow them, not the tables.
DUE = 20
WORK_DUE_BOUND = 2.0  # large / small of a round with DUE items due
JOB_NOTHING_DUE_MS = 20.0
PAGE_CPU_BOUND, PAGE_BUFFERS_BOUND = 1.5, 5.0
EXPLAIN_CAP = 300  # statements re-run under EXPLAIN per round; beyond, the sum is scaled up
FLOOR_REPEATS = 200
HEAVY, OTHER = "player1", "player2"
HEAVIEST_GAMES = "heaviest player's games (active, finished)"


def log(*parts) -> None:
    print(*parts, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------
# Building a database (in its own process)


def play_templates(seed: int = 32):
    """Games played by the rules engine with a random legal player.

    Finished ones mostly end by a resignation after a few turns (what most games on a
    site look like, and ~22 events a game as the issue's history has), a few are played
    to the end; active ones stop after a random number of commands.
    """
    from games.rules import decide, evolve, new_game, random_command

    rng = random.Random(seed)

    def play(commands: int | None, resign: bool):
        state, started = new_game(rng, extra_wild=rng.random() < 0.3)
        events = [(e, None) for e in started]
        played = []
        while not state.finished and (commands is None or len(played) < commands):
            seat = state.turn
            command = random_command(state, seat, rng)
            for event in decide(state, seat, command, rng):
                state = evolve(state, event)
                events.append((event, seat))
            played.append((seat, command, len(events)))
        if resign and not state.finished:
            seat = state.turn
            command = {"type": "resign"}
            for event in decide(state, seat, command, rng):
                state = evolve(state, event)
                events.append((event, seat))
            played.append((seat, command, len(events)))
        return state, events, played

    finished = [
        play(None if k < 2 else rng.randint(6, 26), resign=True) for k in range(TEMPLATES_FINISHED)
    ]
    active = [play(rng.randint(3, 30), resign=False) for _ in range(TEMPLATES_ACTIVE)]
    return finished, active


def copy(cursor, model, overrides: dict[str, str], joins: str, where: str = "TRUE") -> int:
    """Rows of ``model``'s table made from its template rows ``t`` (joined to ``joins``),
    with SQL expressions for some columns; the others are copied."""
    table = model._meta.db_table
    columns = [
        f.column for f in model._meta.concrete_fields if f.column in overrides or not f.primary_key
    ]
    quoted = ", ".join(f'"{c}"' for c in columns)
    chosen = ", ".join(overrides.get(c, f't."{c}"') for c in columns)
    started = time.perf_counter()
    cursor.execute(
        f'INSERT INTO "{table}" ({quoted}) SELECT {chosen} FROM "{table}" t {joins} WHERE {where}'
    )
    log(f"  {table}: {cursor.rowcount:,} rows in {time.perf_counter() - started:.1f} s")
    return cursor.rowcount


class bare:
    """The tables' secondary indexes and unique constraints dropped while rows are copied in,
    built again after (one sort each, instead of an index update per row)."""

    def __init__(self, cursor, tables: list[str]):
        self.cursor, self.tables, self.constraints, self.indexes = cursor, tables, [], []

    def __enter__(self):
        cursor = self.cursor
        for table in self.tables:
            cursor.execute(
                "SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint "
                "WHERE conrelid = %s::regclass AND contype = 'u'",
                [f'"{table}"'],
            )
            constraints = cursor.fetchall()
            cursor.execute(
                "SELECT i.indexrelid::regclass::text, pg_get_indexdef(i.indexrelid) "
                "FROM pg_index i WHERE i.indrelid = %s::regclass AND NOT i.indisprimary "
                "AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid)",
                [f'"{table}"'],
            )
            indexes = cursor.fetchall()
            for name, definition in constraints:
                cursor.execute(f'ALTER TABLE "{table}" DROP CONSTRAINT "{name}"')
                self.constraints.append((table, name, definition))
            for name, definition in indexes:
                cursor.execute(f"DROP INDEX {name}")
                self.indexes.append(definition)
        return self

    def __exit__(self, *exc):
        cursor = self.cursor
        cursor.execute("SET maintenance_work_mem = '256MB'")
        for table, name, definition in self.constraints:
            cursor.execute(f'ALTER TABLE "{table}" ADD CONSTRAINT "{name}" {definition}')
        for definition in self.indexes:
            cursor.execute(definition)
        return False


def migrate_to_old():
    """The database at ``OLD_TARGETS``, the rest at its latest, but an app whose
    migrations need a later one of those apps (tournaments, which needs the games of
    its release): not yet made; the historical apps."""
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    executor = MigrationExecutor(connection)
    graph = executor.loader.graph
    old = {node for target in OLD_TARGETS.items() for node in graph.forwards_plan(target)}
    targets = dict(OLD_TARGETS)
    for app, name in sorted(graph.leaf_nodes()):
        needs = graph.forwards_plan((app, name))
        newer = any(a in OLD_TARGETS and (a, n) not in old for a, n in needs)
        targets.setdefault(app, None if newer else name)
    plan = list(targets.items())
    executor.migrate(plan)
    return executor.loader.project_state([t for t in plan if t[1] is not None]).apps


def fill(apps, size: dict) -> dict:
    from django.db import connection
    from django.utils import timezone

    from games.rules import state_to_json

    EmailAddress = apps.get_model("account", "EmailAddress")
    User = apps.get_model("accounts", "User")
    Game = apps.get_model("games", "Game")
    Seat = apps.get_model("games", "Seat")
    Event = apps.get_model("games", "Event")
    Command = apps.get_model("games", "Command")
    Notification = apps.get_model("games", "Notification")
    GameAnalysis = apps.get_model("games", "GameAnalysis")
    RatingChange = apps.get_model("ratings", "RatingChange")
    PlayerRating = apps.get_model("ratings", "PlayerRating")

    users, finished, active = size["users"], size["finished"], size["active"]
    heavy_finished, heavy_active = size["heavy_every"]
    bot_every = max(2, active // 55)  # ~55 games with a computer opponent on either size
    now = timezone.now()

    started = time.perf_counter()
    finished_templates, active_templates = play_templates()
    played = time.perf_counter() - started

    template = User.objects.create(username="template", email="template@example.org", password="!")
    # every player's address confirmed: emails go only to those
    address = EmailAddress.objects.create(
        user=template, email=template.email, verified=True, primary=True
    )
    sitters = [
        User.objects.create(username=f"template{i}", email=f"t{i}@example.org", password="!")
        for i in (0, 1)
    ]
    bots = list(User.objects.filter(bot_level__gt="").order_by("pk").values_list("pk", flat=True))
    if not bots:
        raise SystemExit("no computer opponents: accounts migration 0010 should create them")

    def stored(state, events, played, status):
        result = state.result
        game = Game.objects.create(
            status=status,
            extra_wild=state.extra_wild,
            days_per_move=3,
            rated=True,
            version=len(events),
            state=state_to_json(state),
            round=max(state.round, 1),
            to_move=sitters[state.turn] if status == "active" and state.turn is not None else None,
            winner=sitters[result.winner] if result and result.winner is not None else None,
            result_reason=result.reason if result else "",
            score0=result.scores[0].total if result else None,
            score1=result.scores[1].total if result else None,
            last_move_at=now,
            finished_at=now if result else None,
            turn_number=len(played) // 3 + 1,
            turn_started_at=now,
            deadline=None if result else now + timedelta(days=3),
        )
        for seat, sitter in enumerate(sitters):
            Seat.objects.create(game=game, user=sitter, seat=seat)
        Event.objects.bulk_create(
            Event(
                game=game,
                seq=seq,
                kind=event["type"],
                payload={k: v for k, v in event.items() if k != "type"},
                seat=seat,
            )
            for seq, (event, seat) in enumerate(events, start=1)
        )
        rows = []
        for number, (seat, command, version) in enumerate(played, start=1):
            rows.append(
                Command(
                    game=game,
                    seat=seat,
                    client_id=f"c{number}",
                    command=command,
                    version=version,
                )
            )
        Command.objects.bulk_create(rows)
        return game, result

    finished_rows = []
    for k, (state, events, played_commands) in enumerate(finished_templates):
        game, result = stored(state, events, played_commands, "finished")
        finished_rows.append((k, game.pk, result.winner))
    active_rows = []
    for k, (state, events, played_commands) in enumerate(active_templates):
        game, _ = stored(state, events, played_commands, "active")
        active_rows.append((k, game.pk, state.turn))
    first = finished_rows[0][1]
    GameAnalysis.objects.create(game_id=first, status="ready", computed_at=now)
    change = RatingChange.objects.create(
        game_id=first,
        user=sitters[0],
        opponent=sitters[1],
        score=1,
        rating_before=1500,
        deviation_before=350,
        volatility_before=0.06,
        rating_after=1500,
        deviation_after=350,
        volatility_after=0.06,
    )
    rating = PlayerRating.objects.create(user=template)
    notification = Notification.objects.create(
        user=template, kind="turn", key="template", sent_at=now, outcome="sent"
    )

    counts = {}
    with connection.cursor() as cursor:
        # Copies skip the foreign-key and append-only triggers (they would check each row
        # again): every id below is made to exist.
        cursor.execute("SET session_replication_role = replica")
        big = [m._meta.db_table for m in (Game, Seat, Event, Command, Notification, RatingChange)]
        indexes = bare(cursor, big).__enter__()
        cursor.execute("CREATE TEMP TABLE tpl_finished (k int, game_id bigint, winner int)")
        cursor.executemany("INSERT INTO tpl_finished VALUES (%s, %s, %s)", finished_rows)
        cursor.execute("CREATE TEMP TABLE tpl_active (k int, game_id bigint, turn int)")
        cursor.executemany("INSERT INTO tpl_active VALUES (%s, %s, %s)", active_rows)
        u = f"{USER_BASE}"
        others = users - 1  # player2 … playerN; player1 is the heaviest
        counts["users"] = copy(
            cursor,
            User,
            {
                "id": f"{u} + g",
                "username": "'player' || g",
                "email": "'player' || g || '@example.org'",
                # the digest chosen (games.notify.preferences: the choices as JSON)
                "notification_choices": f"CASE WHEN g % {DIGEST_EVERY} = 0 "
                "THEN '{\"daily_digest\": true}'::jsonb ELSE '{}'::jsonb END",
                "date_joined": "now() - g * interval '1 hour'",
                "last_login": "now() - g * interval '1 minute'",
            },
            f"CROSS JOIN generate_series(1, {users}) g",
            f"t.id = {template.pk}",
        )
        counts["addresses"] = copy(
            cursor,
            EmailAddress,
            {"user_id": f"{u} + g", "email": "'player' || g || '@example.org'"},
            f"CROSS JOIN generate_series(1, {users}) g",
            f"t.id = {address.pk}",
        )
        spread = f"((g::bigint * 7919) % {others})"
        partner = f"{u} + 2 + ({spread} + 1 + g % {others - 1}) % {others}"
        cursor.execute(
            f"""CREATE TEMP TABLE map_finished AS
            SELECT g, {FINISHED_BASE} + g AS id, f.game_id AS tpl, f.winner,
                CASE WHEN g % {heavy_finished} = 0 THEN {u} + 1 ELSE {u} + 2 + {spread} END AS p0,
                {partner} AS p1,
                now() - interval '1 hour'
                    - interval '1 minute' * ((g::bigint * 104729) % 1051200) AS finished_at,
                g % {RATED_EVERY} <> 0 AS rated
            FROM generate_series(1, {finished}) g
            JOIN tpl_finished f ON f.k = g % {TEMPLATES_FINISHED}"""
        )
        counts["finished"] = copy(
            cursor,
            Game,
            {
                "id": "m.id",
                "winner_id": "CASE m.winner WHEN 0 THEN m.p0 WHEN 1 THEN m.p1 END",
                "created_at": "m.finished_at - interval '9 days'",
                "last_move_at": "m.finished_at",
                "finished_at": "m.finished_at",
                "turn_started_at": "m.finished_at",
                "rated": "m.rated",
            },
            "JOIN map_finished m ON m.tpl = t.id",
        )
        bot_list = "ARRAY[" + ",".join(map(str, bots)) + "]"
        cursor.execute(
            f"""CREATE TEMP TABLE map_active AS
            WITH b AS (
                SELECT g, a.game_id AS tpl, a.turn,
                    g % {heavy_active} <> 0 AND g % {bot_every} = 0 AS bot,
                    CASE WHEN g % {heavy_active} = 0 THEN {u} + 1
                        ELSE {u} + 2 + {spread} END AS h0,
                    {partner} AS h1
                FROM generate_series(1, {active}) g
                JOIN tpl_active a ON a.k = g % {TEMPLATES_ACTIVE}
            )
            SELECT g, {ACTIVE_BASE} + g AS id, tpl, turn, bot,
                -- a computer opponent sits where it is not its turn: nothing due for it
                CASE WHEN bot AND turn = 1 THEN ({bot_list})[1 + g % {len(bots)}]
                    ELSE h0 END AS p0,
                CASE WHEN bot AND turn = 0 THEN ({bot_list})[1 + g % {len(bots)}]
                    ELSE h1 END AS p1,
                now() - interval '1 minute' * (g % 600) AS began
            FROM b"""
        )
        counts["active"] = copy(
            cursor,
            Game,
            {
                "id": "m.id",
                "to_move_id": "CASE m.turn WHEN 0 THEN m.p0 ELSE m.p1 END",
                "created_at": "m.began - interval '2 days'",
                "last_move_at": "m.began",
                "turn_started_at": "m.began",
                "deadline": "m.began + t.days_per_move * interval '1 day'",
            },
            "JOIN map_active m ON m.tpl = t.id",
        )
        for mapping in ("map_active", "map_finished"):  # the few first, while the tables are small
            when = "m.finished_at" if mapping == "map_finished" else "m.began"
            counts[f"seats ({mapping[4:]})"] = copy(
                cursor,
                Seat,
                {"game_id": "m.id", "user_id": "CASE t.seat WHEN 0 THEN m.p0 ELSE m.p1 END"},
                f"JOIN {mapping} m ON m.tpl = t.game_id",
            )
            counts[f"events ({mapping[4:]})"] = copy(
                cursor,
                Event,
                {"game_id": "m.id", "created_at": when},
                f"JOIN {mapping} m ON m.tpl = t.game_id",
            )
            counts[f"commands ({mapping[4:]})"] = copy(
                cursor,
                Command,
                {"game_id": "m.id", "created_at": when},
                f"JOIN {mapping} m ON m.tpl = t.game_id",
            )
        score = "CASE WHEN m.winner IS NULL THEN 0.5 WHEN m.winner = s.seat THEN 1 ELSE 0 END"
        before = "1500 + ((m.g * 37 + s.seat * 11) % 400) - 200"
        counts["rating changes"] = copy(
            cursor,
            RatingChange,
            {
                "game_id": "m.id",
                "user_id": "CASE s.seat WHEN 0 THEN m.p0 ELSE m.p1 END",
                "opponent_id": "CASE s.seat WHEN 0 THEN m.p1 ELSE m.p0 END",
                "score": score,
                "rating_before": before,
                "deviation_before": "60",
                "rating_after": f"{before} + 16 * ({score} - 0.5)",
                "deviation_after": "60",
                "created_at": "m.finished_at",
            },
            "JOIN map_finished m ON m.rated CROSS JOIN (VALUES (0), (1)) AS s(seat)",
            f"t.id = {change.pk}",
        )
        counts["player ratings"] = copy(
            cursor,
            PlayerRating,
            {
                "user_id": "a.user_id",
                "rating": "a.rating",
                "deviation": "60",
                "games": "a.n",
                "wins": "a.w",
                "draws": "a.d",
                "losses": "a.l",
                "updated_at": "now()",
            },
            f"""CROSS JOIN (
                SELECT user_id, count(*) AS n, sum((score = 1)::int) AS w,
                    sum((score = 0.5)::int) AS d, sum((score = 0)::int) AS l,
                    (array_agg(rating_after ORDER BY created_at DESC))[1] AS rating
                FROM "{RatingChange._meta.db_table}" WHERE user_id > {u} GROUP BY user_id
            ) a""",
            f"t.id = {rating.pk}",
        )
        counts["notifications done"] = copy(
            cursor,
            Notification,
            {
                "user_id": f"{u} + 2 + g % {others}",
                "game_id": f"{FINISHED_BASE} + 1 + g % {finished}",
                "key": "'k' || g",
                "created_at": "now() - g * interval '30 seconds'",
                "sent_at": "now() - g * interval '30 seconds'",
            },
            f"CROSS JOIN generate_series(1, {size['done']}) g",
            f"t.id = {notification.pk}",
        )
        games = Game._meta.db_table
        counts["analyses"] = copy(
            cursor,
            GameAnalysis,
            {"game_id": "x.id", "created_at": "x.finished_at", "computed_at": "x.finished_at"},
            f"""JOIN "{games}" x ON x.status = 'finished' AND x.id <> t.game_id""",
            f"t.game_id = {first}",
        )
        started = time.perf_counter()
        indexes.__exit__(None, None, None)
        log(f"  indexes built again in {time.perf_counter() - started:.1f} s")
        for model in (User, Game):
            table = model._meta.db_table
            cursor.execute(
                f"SELECT setval(pg_get_serial_sequence('\"{table}\"', 'id'), "
                f'(SELECT max(id) FROM "{table}"))'
            )
        cursor.execute("SET session_replication_role = DEFAULT")
        cursor.execute(
            f"""SELECT count(*) FROM "{Seat._meta.db_table}" s JOIN "{games}" g
            ON g.id = s.game_id WHERE s.user_id = {u} + 1 GROUP BY g.status ORDER BY g.status"""
        )
        counts[HEAVIEST_GAMES] = [r[0] for r in cursor.fetchall()]
    counts["engine games played (s)"] = round(played, 1)
    return counts


def build(name: str, scale: float) -> dict:
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection

    size = sized(name, scale)
    started = time.perf_counter()
    apps = migrate_to_old()
    migrated_old = time.perf_counter() - started
    log(f"{name}: at the old schema in {migrated_old:.1f} s; filling")
    started = time.perf_counter()
    counts = fill(apps, size)
    filled = time.perf_counter() - started
    log(f"{name}: filled in {filled:.1f} s; migrating to the latest")
    started = time.perf_counter()
    call_command("migrate", verbosity=0)
    migrated = time.perf_counter() - started
    # the tournaments, at the latest schema (a release without them: none)
    counts.update(tournament_fill.fill(name, DUE, copy, USER_BASE, [HEAVY, OTHER]))
    started = time.perf_counter()
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")
        vacuumed = time.perf_counter() - started
        tables = {}
        cursor.execute(
            "SELECT tablename FROM pg_tables WHERE tablename IN "
            "('tournaments_tournament', 'tournaments_entry', 'tournaments_match')"
        )
        tournament_tables = sorted(row[0] for row in cursor.fetchall())
        for table in (
            "games_game",
            "games_event",
            "games_command",
            "games_notification",
            *tournament_tables,
        ):
            cursor.execute(f'SELECT count(*), pg_total_relation_size(\'"{table}"\') FROM "{table}"')
            rows, size_bytes = cursor.fetchone()
            tables[table] = {"rows": rows, "mib": round(size_bytes / 2**20)}
        cursor.execute("SELECT pg_database_size(current_database())")
        database_mib = round(cursor.fetchone()[0] / 2**20)
    log(f"{name}: migrate to latest {migrated:.1f} s, VACUUM ANALYZE {vacuumed:.1f} s")
    return {
        "database": name,
        "size": size,
        "old_schema_s": round(migrated_old, 1),
        "fill_s": round(filled, 1),
        "migrate_latest_s": round(migrated, 2),
        "vacuum_s": round(vacuumed, 1),
        "counts": counts,
        "tables": tables,
        "database_mib": database_mib,
    }


def sized(name: str, scale: float) -> dict:
    size = dict(SIZES[name])
    if name == "large" and scale != 1:
        for key in ("users", "finished", "active", "done"):
            size[key] = max(SIZES["small"][key], int(size[key] * scale))
    return size


# ---------------------------------------------------------------------------------------
# Measuring (in its own process, once per database and pass)


class Rollback(Exception):
    pass


class Captured:
    """The statements run inside: every one counted (``count``), the last 9,000 kept with
    their SQL (``queries``: Django's query log keeps no more)."""

    def __enter__(self):
        from django.db import connection
        from django.test.utils import CaptureQueriesContext

        self.count = 0

        def counting(execute, sql, params, many, context):
            self.count += 1
            return execute(sql, params, many, context)

        connection.queries_log.clear()  # a full log would hide what follows
        self.wrapper = connection.execute_wrapper(counting)
        self.wrapper.__enter__()
        self.capture = CaptureQueriesContext(connection)
        self.capture.__enter__()
        return self

    def __exit__(self, *exc):
        self.capture.__exit__(*exc)
        self.wrapper.__exit__(*exc)
        self.queries = self.capture.captured_queries
        return False


def buffers(captured: Captured) -> dict:
    """The statements re-run under EXPLAIN (ANALYZE, BUFFERS), each in a transaction rolled
    back: shared buffers hit + read summed (scaled up past ``EXPLAIN_CAP``), and the
    tables read by a sequential scan."""
    from django.db import DatabaseError, connection, transaction

    queries = captured.queries
    total = explained = 0
    scanned = set()

    def walk(node):
        if node.get("Node Type") == "Seq Scan":
            scanned.add(node.get("Relation Name"))
        for child in node.get("Plans", []):
            walk(child)

    runnable = [
        q["sql"]
        for q in queries
        if q["sql"].lstrip().split(None, 1)[0].upper()
        in ("SELECT", "WITH", "UPDATE", "INSERT", "DELETE")
    ]
    for sql in runnable[:EXPLAIN_CAP]:
        try:
            with transaction.atomic():
                with connection.cursor() as cursor:
                    cursor.execute("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + sql)
                    plan = cursor.fetchone()[0]
                raise Rollback
        except Rollback:
            pass
        except DatabaseError:
            continue
        if isinstance(plan, str):
            plan = json.loads(plan)
        top = plan[0]["Plan"]
        total += top.get("Shared Hit Blocks", 0) + top.get("Shared Read Blocks", 0)
        explained += 1
        walk(top)
    if explained and captured.count > explained:
        total = total * len(runnable) / explained * captured.count / max(len(queries), 1)
    return {
        "buffers": round(total),
        "explained": explained,
        "statements": captured.count,
        "seq_scans": sorted(s for s in scanned if s),
    }


def rounds(function, budget: float = 1.5, least: int = 3) -> list[float]:
    """Times (ms) of calls of ``function``: at least ``least`` and until ``budget`` seconds
    are spent, at most 50."""
    samples, spent = [], 0.0
    while len(samples) < 50:
        started = time.perf_counter()
        function()
        samples.append((time.perf_counter() - started) * 1000)
        spent += samples[-1] / 1000
        if len(samples) >= least and spent >= budget:
            break
    return samples


def tidy() -> None:
    """Every pending notification marked done, as if sent: the next job sees nothing due."""
    from django.db import connection

    from games.models import Notification

    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE \"{Notification._meta.db_table}\" SET sent_at = now(), outcome = 'sent' "
            "WHERE sent_at IS NULL"
        )


def due_fields(model, *words: str) -> list[str]:
    """The model's date-time fields whose names hold all ``words`` (``due``…)."""
    from django.db import models

    return [
        f.column
        for f in model._meta.concrete_fields
        if isinstance(f, models.DateTimeField) and all(w in f.name for w in words)
    ]


def make_due(job: str, count: int, pass_number: int) -> list[int]:
    """Make ``count`` items of ``job``'s work due, in a way every release understands.

    The write is what the old code reads (a deadline in the past, an opted-in player
    without today's digest, a finished game without an analysis, a bot on turn since an
    hour). A later release may also keep a stored time at which the item is due (a
    date-time column with "due" in its name, on games or, with "digest", on players): when
    the model has one, it is set to a minute ago as well, which is what "due" means
    whatever else the column folds in. The items are ones no earlier pass touched.
    """
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.utils import timezone

    from games.models import Game, Notification, Seat
    from games.notify.preferences import choose
    from games.services.commands import do_command

    users = get_user_model()
    now = timezone.now()
    bots = list(users.objects.filter(bot_level__gt="").values_list("pk", flat=True))
    untouched = (  # copies only: the templates' players have no confirmed address
        Game.objects.filter(status="active", deadline__gt=now + timezone.timedelta(days=1))
        .filter(pk__gt=ACTIVE_BASE, pk__lt=TOURNAMENT_BASE)
        .exclude(to_move_id__in=bots)
        .exclude(seats__user__username=HEAVY)
        .exclude(seats__user_id__in=bots)
        .order_by("id")
    )
    games_table = Game._meta.db_table

    def game_due(ids):
        for column in due_fields(Game, "due"):
            with connection.cursor() as cursor:
                cursor.execute(
                    f'UPDATE "{games_table}" SET "{column}" = now() - interval \'1 minute\' '
                    "WHERE id = ANY(%s)",
                    [ids],
                )

    if job == "deadlines":
        ids = list(untouched.values_list("pk", flat=True)[:count])
        timeouts, reminders = ids[: count // 2], ids[count // 2 :]
        with connection.cursor() as cursor:
            # time ran out an hour ago
            cursor.execute(
                f'UPDATE "{games_table}" SET turn_started_at = now() - days_per_move * '
                "interval '1 day' - interval '1 hour', deadline = now() - interval '1 hour' "
                "WHERE id = ANY(%s)",
                [timeouts],
            )
            # a tenth of the time left: the reminder (at a fifth) is due
            cursor.execute(
                f'UPDATE "{games_table}" SET turn_started_at = now() - days_per_move * '
                "interval '0.9 day', deadline = now() + days_per_move * interval '0.1 day' "
                "WHERE id = ANY(%s)",
                [reminders],
            )
        game_due(ids)
        return ids
    if job == "digests":
        ids = list(
            users.objects.filter(digest_due_at__isnull=True, is_active=True, bot_level="")
            .filter(pk__gt=USER_BASE)
            .exclude(email="")
            .exclude(username=HEAVY)
            .filter(pk__in=Game.objects.filter(status="active").values("to_move_id"))
            .order_by("pk")
            .values_list("pk", flat=True)[:count]
        )
        for user in users.objects.filter(pk__in=ids):
            choose(user, daily_digest=True)
        Notification.objects.filter(user_id__in=ids, kind="digest").delete()
        for column in due_fields(users, "digest"):
            users.objects.filter(pk__in=ids).update(**{column: now - timezone.timedelta(minutes=1)})
        return ids
    if job == "notifications":
        games = list(untouched.values_list("pk", "to_move_id")[:count])
        Notification.objects.bulk_create(
            Notification(user_id=user, game_id=game, kind="turn", key=f"bench-{pass_number}-{game}")
            for game, user in games
        )
        return [game for game, _ in games]
    if job == "bots":
        waiting = list(
            Game.objects.filter(
                status="active",
                seats__user_id__in=bots,
                pk__gt=ACTIVE_BASE,
                pk__lt=TOURNAMENT_BASE,
            )
            .exclude(to_move_id__in=bots)
            .order_by("id")
            .values_list("pk", flat=True)[:count]
        )
        seats = Seat._meta.db_table
        with connection.cursor() as cursor:
            # The players swap seats, so the computer opponent sits where it is its turn
            # (in two steps: the seat numbers stay unique in between).
            cursor.execute(
                f'UPDATE "{seats}" SET seat = seat + 2 WHERE game_id = ANY(%s)', [waiting]
            )
            cursor.execute(
                f'UPDATE "{seats}" SET seat = 3 - seat WHERE game_id = ANY(%s)', [waiting]
            )
            cursor.execute(
                f'UPDATE "{games_table}" g SET to_move_id = s.user_id, '
                "turn_started_at = now() - interval '1 hour' "
                f'FROM "{seats}" s WHERE s.game_id = g.id AND s.user_id = ANY(%s) '
                "AND g.id = ANY(%s)",
                [bots, waiting],
            )
        return waiting
    if job == "analysis":
        # Games that end now, through the service every release ends a game with: a
        # release with a queue of analyses queues them there.
        ended = []
        for game in untouched.select_related("to_move")[:count]:
            do_command(game.pk, game.to_move, {"type": "resign"}, game.version, f"bench-{game.pk}")
            ended.append(game.pk)
        tidy()
        return ended
    if job in (TOURNAMENT_STAGE, TOURNAMENT_IDLE):
        return tournaments_due(job, count)
    return []


# The two rounds of the tournaments' stage check with tournaments due (``make_due``).
TOURNAMENT_STAGE = "tournaments: next stage"
TOURNAMENT_IDLE = "tournaments: nothing to do"


def ready_tournaments(count: int) -> list[int]:
    """The knock-outs of 64 whose round of 64 waits for its last game
    (``tournament_fill``), the first ``count`` of them: no earlier pass touched them."""
    from django.db.models import Count, Q

    from tournaments.models import Tournament

    return list(
        Tournament.objects.filter(status="running", format="knockout", stage=1)
        .annotate(open=Count("matches", filter=~Q(matches__status="decided")))
        .filter(open=1)
        .order_by("pk")
        .values_list("pk", flat=True)[:count]
    )


def tournaments_due(job: str, count: int) -> list[int]:
    """``count`` running tournaments whose ``check_at`` has come, a minute ago.

    Next stage: the ready ones' last game of their round of 64 ends (its mover resigns,
    through the service every game ends by: the match is decided, and with it the
    stage), so the check draws the round of 32 and starts its 32 games. The services
    try that check right after the game's commit; here it is left to the worker, as
    when the process stops between the two (the worker is that check's fallback): the
    same ``do_check``, in the job. Nothing to do: knock-outs of the same shape with
    matches under way (the ready ones the next pass will take, or the ones an earlier
    pass advanced), which the check looks at and leaves.
    """
    from unittest import mock

    from django.db.models import Q
    from django.utils import timezone

    from games.models import Game
    from games.services.commands import do_command
    from tournaments.models import Tournament
    from tournaments.services import stages

    ready = ready_tournaments(count)
    if job == TOURNAMENT_STAGE:
        ids = ready
        last = (
            Game.objects.filter(status="active", tournament_game__match__tournament_id__in=ids)
            .select_related("to_move")
            .order_by("pk")
        )
        with mock.patch.object(stages, "after_commit_check", lambda tournament_id: None):
            for game in last:
                client_id = f"bench-{game.pk}"
                do_command(game.pk, game.to_move, {"type": "resign"}, game.version, client_id)
        tidy()
    else:
        ids = list(
            Tournament.objects.filter(status="running", format="knockout")
            .filter(~Q(pk__in=ready))
            .filter(matches__status="playing")
            .distinct()
            .order_by("pk")
            .values_list("pk", flat=True)[:count]
        )
    due = timezone.now() - timedelta(minutes=1)
    Tournament.objects.filter(pk__in=ids).update(check_at=due)
    return ids


def moderator_client():
    """A client of a moderator who has used their second factor (the console asks staff
    for it, as the admin does): a superuser, made once, with an authenticator app."""
    import base64
    import secrets

    from allauth.mfa.adapter import get_adapter as get_mfa_adapter
    from allauth.mfa.models import Authenticator
    from django.contrib.auth import get_user_model
    from django.test import Client

    from accounts.middleware import SECOND_FACTOR_USED

    users = get_user_model()
    moderator, made = users.objects.get_or_create(
        username="bench-moderator", defaults={"is_staff": True, "is_superuser": True}
    )
    if made:
        secret = base64.b32encode(secrets.token_bytes(20)).decode()
        data = {"secret": get_mfa_adapter().encrypt(secret)}
        Authenticator.objects.create(user=moderator, type=Authenticator.Type.TOTP, data=data)
    client = Client()
    client.force_login(moderator)
    session = client.session
    session[SECOND_FACTOR_USED] = moderator.pk
    session.save()
    return client


FOLLOWED = 50  # the players the heavy player follows (the friends page)


def follow_for_the_friends_page(heavy) -> None:
    """The heavy player follows ``FOLLOWED`` players, their opponents in games under way
    first (the page's "your turn" links), the rest of the first players; made once,
    kept by the next pass."""
    from accounts.models import Follow
    from games.models import Game, Seat

    if Follow.objects.filter(follower=heavy).exists():
        return
    opponents = (
        Seat.objects.filter(game__status=Game.Status.ACTIVE, game__seats__user=heavy)
        .exclude(user=heavy)
        .values_list("user_id", flat=True)
        .distinct()[:FOLLOWED]
    )
    chosen = list(dict.fromkeys(opponents))
    if len(chosen) < FOLLOWED:
        others = heavy.__class__.objects.exclude(pk__in=[heavy.pk, *chosen])
        others = others.filter(guest_until__isnull=True, bot_level="").order_by("pk")
        chosen += list(others.values_list("pk", flat=True)[: FOLLOWED - len(chosen)])
    Follow.objects.bulk_create(
        [Follow(follower=heavy, followed_id=pk) for pk in chosen], ignore_conflicts=True
    )


def tournament_job(jobs: dict) -> str | None:
    """The name of the worker's tournament stage check in ``JOBS`` (None: none)."""
    for name, job in jobs.items():
        if getattr(job, "__module__", "").startswith("tournaments"):
            return name
    return None


def tournament_pages(as_heavy) -> dict:
    """The tournament pages (when the checkout has tournaments): the list, a running groups
    stage and a running knock-out as one of its players, the groups stage as a visitor
    (the API's view asks for a login: as the player only)."""
    from django.apps import apps
    from django.contrib.auth import get_user_model
    from django.test import Client

    if not apps.is_installed("tournaments"):
        return {}
    from tournaments.models import Entry, Tournament

    showcase = {
        kind: Tournament.objects.get(name=name) for kind, name in tournament_fill.SHOWCASE.items()
    }

    def player(tournament):
        entry = (
            Entry.objects.filter(tournament=tournament, status="playing").order_by("seed").first()
        )
        client = Client()
        client.force_login(get_user_model().objects.get(pk=entry.user_id))
        return client

    groups, bracket = showcase["groups"].pk, showcase["bracket"].pk
    in_groups = player(showcase["groups"])
    return {
        "tournaments list": (as_heavy, "/tournaments/"),
        "tournament groups": (in_groups, f"/tournaments/{groups}/"),
        "tournament knock-out": (player(showcase["bracket"]), f"/tournaments/{bracket}/"),
        "api tournament (player)": (in_groups, f"/api/tournaments/{groups}/"),
        "tournament groups (visitor)": (Client(), f"/tournaments/{groups}/"),
    }


def measure(name: str, pass_number: int) -> dict:
    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.db import connection, transaction
    from django.test import Client
    from django.urls import reverse
    from django.utils.timezone import now

    from games.jobs import JOBS
    from games.models import WorkerHeartbeat

    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    warnings.filterwarnings("ignore", "Limit for query logging exceeded")
    # as in production: no statement kept in memory, no debug pages (DJANGO_DEBUG=1 was
    # only there for the development secret key)
    settings.DEBUG = False
    connection.ensure_connection()

    def ping():
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")

    def insert():
        with transaction.atomic():
            WorkerHeartbeat.objects.create(name=f"bench-{time.perf_counter_ns()}", beat_at=now())

    result = {"database": name, "pass": pass_number, "jobs": {}, "pages": {}, "due": {}}
    for label, function in (("ping", ping), ("insert", insert)):
        samples = []
        for _ in range(FLOOR_REPEATS):
            started = time.perf_counter()
            function()
            samples.append((time.perf_counter() - started) * 1000)
        result[f"{label}_ms"] = round(statistics.median(samples), 3)

    # Jobs with nothing due: one warm-up round each (today's digests queued, say), its
    # emails marked done; then the measured rounds.
    for job in JOBS.values():
        job()
    tidy()
    for job_name, job in JOBS.items():
        with Captured() as captured:
            started = time.perf_counter()
            answer = job()
            samples = [(time.perf_counter() - started) * 1000]
        if samples[0] < 5000:  # a round of seconds: its noise is small beside it
            samples += rounds(job, least=2)
        figures = buffers(captured)
        result["jobs"][job_name] = {
            "ms": round(statistics.median(samples), 2),
            "rounds": len(samples),
            "answer": repr(answer),
            **figures,
        }
        log(f"{name} pass {pass_number}: {job_name} {result['jobs'][job_name]['ms']} ms")
        tidy()

    users = get_user_model()
    heavy, other = users.objects.get(username=HEAVY), users.objects.get(username=OTHER)
    as_heavy, as_other = Client(), Client()
    as_heavy.force_login(heavy)
    as_other.force_login(other)
    profile = reverse("profile", args=[HEAVY])
    as_moderator = moderator_client()
    follow_for_the_friends_page(heavy)
    pages = {
        "lobby /": (as_heavy, reverse("home")),
        "finished games": (as_heavy, reverse("finished")),
        "profile (own)": (as_heavy, profile),
        "profile (other)": (as_other, profile),
        "api active": (as_heavy, reverse("api_games") + "?status=active"),
        "api finished": (as_heavy, reverse("api_games") + "?status=finished"),
        "api invitations": (as_heavy, reverse("api_invitations")),
        "ranking": (as_heavy, reverse("ranking")),
        "moderation console": (as_moderator, reverse("moderation_console")),
        # the filtered list: against one opponent, and one result among all their games
        "games vs opponent": (as_heavy, reverse("my_games") + f"?opponent={OTHER}&result=won"),
        "games won": (as_heavy, reverse("my_games") + "?result=won&rated=rated"),
        "api games vs opponent": (
            as_heavy,
            reverse("api_games") + f"?status=finished&opponent={OTHER}",
        ),
        "live games": (as_other, reverse("live")),
        # every player's name starts so: the search reads a page of its index, no more
        "search": (as_heavy, reverse("players") + "?q=play"),
        "api search": (as_heavy, reverse("api_players") + "?q=PLAYER1"),
        "friends": (as_heavy, reverse("friends")),
        **tournament_pages(as_heavy),
    }
    for page, (client, url) in pages.items():
        client.get(url)  # warm-up
        cpu, wall = [], []
        while len(cpu) < 5 or (sum(wall) < 1.5 and len(cpu) < 40):
            started, clock = time.process_time(), time.perf_counter()
            response = client.get(url)
            cpu.append((time.process_time() - started) * 1000)
            wall.append(time.perf_counter() - clock)
        with Captured() as captured:
            response = client.get(url)
        result["pages"][page] = {
            "url": url,
            "status": response.status_code,
            "cpu_ms": round(statistics.median(cpu), 2),
            "wall_ms": round(statistics.median(wall) * 1000, 2),
            "repeats": len(cpu),
            **buffers(captured),
        }
        log(f"{name} pass {pass_number}: {page} {result['pages'][page]['cpu_ms']} ms CPU")

    due_rows = [(n, n) for n in ("deadlines", "digests", "notifications", "analysis", "bots")]
    stage_check = tournament_job(JOBS)
    if stage_check:
        due_rows += [(TOURNAMENT_IDLE, stage_check), (TOURNAMENT_STAGE, stage_check)]
    for job_name, job_key in due_rows:
        if job_key not in JOBS:
            continue
        items = make_due(job_name, DUE, pass_number)
        with Captured() as captured:
            started = time.perf_counter()
            answer = JOBS[job_key]()
            elapsed = (time.perf_counter() - started) * 1000
        result["due"][job_name] = {
            "due": len(items),
            "ms": round(elapsed, 1),
            "statements": captured.count,
            "answer": repr(answer),
        }
        log(f"{name} pass {pass_number}: {job_name} with {len(items)} due {elapsed:.0f} ms")
        tidy()
    # The games ended above wait for their analysis: done now, so that the next pass
    # starts with nothing due again.
    # (A round may weigh nothing and still finish a game with no decision: three idle
    # rounds in a row mean done.)
    started, idle = time.perf_counter(), 0
    while idle < 3 and time.perf_counter() - started < 120:
        idle = 0 if JOBS["analysis"]() else idle + 1
    return result


# ---------------------------------------------------------------------------------------
# The run: databases, passes, the other benchmarks, the report


def admin(server: str, *statements: str) -> None:
    import psycopg

    with psycopg.connect(f"{server}/postgres", autocommit=True) as connection:
        for statement in statements:
            connection.execute(statement)


def child(args: list[str], env: dict, timeout: float = 1800) -> dict | None:
    """Run a script, its progress on our stderr; the JSON of its last stdout line."""
    done = subprocess.run(
        [sys.executable, *args],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        text=True,
        timeout=timeout,
        check=False,
    )
    lines = done.stdout.strip().splitlines()
    if done.returncode or not lines:
        log(f"{' '.join(args)} ended with {done.returncode}: {done.stdout[-2000:]}")
        return None
    try:
        return json.loads(lines[-1])
    except json.JSONDecodeError:
        log(f"{' '.join(args)}: no JSON on the last line: {lines[-1][:300]}")
        return None


def ratio(a, b):
    return b / a if a else float("nan")


def fmt(value, digits=1):
    if value is None:
        return "—"
    if isinstance(value, float) and value != value:
        return "n/a"
    return f"{value:,.{digits}f}"


def both(passes: list[dict], section: str, item: str, key: str) -> list[float]:
    return [
        p[section][item][key]
        for p in passes
        if item in p.get(section, {}) and key in p[section][item]
    ]


def report(builds: dict, measured: dict, workers, sockets, only: str | None) -> list[str]:
    lines = []
    say = lines.append
    for name, built in builds.items():
        tables = ", ".join(
            f"{t.split('_')[1]} {v['rows']:,} ({v['mib']} MiB)" for t, v in built["tables"].items()
        )
        say(
            f"{name}: built in {built['old_schema_s'] + built['fill_s']:.0f} s "
            f"(fill {built['fill_s']} s); database {built['database_mib']:,} MiB; {tables}"
        )
        heaviest = built["counts"][HEAVIEST_GAMES]
        say(f"  heaviest player's games (active, finished): {heaviest}")
        say(f"migrate to latest on {name}: {built['migrate_latest_s']} s")
    names = [n for n in ("small", "large") if n in measured]

    def mid(values):
        return statistics.mean(values) if values else None

    def aa(values):
        return values[1] / values[0] if len(values) == 2 and values[0] else None

    say("")
    say("floor (median ms)      " + "".join(f"{n:>12}" for n in names))
    for key in ("ping_ms", "insert_ms"):
        say(
            f"{key:<23}"
            + "".join(f"{fmt(mid([p[key] for p in measured[n]]), 3):>12}" for n in names)
        )

    header = (
        f"{'':<22}{'small':>10}{'large':>11}{'ratio':>8}{'A/A s':>7}{'A/A l':>7}"
        f"{'stmts s/l':>14}{'buffers s/l':>20}"
    )

    def row(label, section, item, key):
        values = {n: both(measured[n], section, item, key) for n in names}
        s, lg = mid(values.get("small", [])), mid(values.get("large", []))
        stm = {n: both(measured[n], section, item, "statements") for n in names}
        buf = {n: both(measured[n], section, item, "buffers") for n in names}
        stmts = "/".join(str(max(stm[n])) if stm[n] else "—" for n in names)
        bufs = "/".join(f"{round(mid(buf[n])):,}" if buf[n] else "—" for n in names)
        r = ratio(s, lg) if s and lg else None
        say(
            f"{label:<22}{fmt(s, 2):>10}{fmt(lg, 2):>11}{fmt(r, 2):>8}"
            f"{fmt(aa(values.get('small', [])), 2):>7}{fmt(aa(values.get('large', [])), 2):>7}"
            f"{stmts:>14}{bufs:>20}"
        )
        return s, lg, mid(buf.get("small", [])), mid(buf.get("large", []))

    say("")
    say("jobs, nothing due: ms per round (median)")
    say(header)
    jobs = {}
    job_names = list(measured[names[0]][0]["jobs"])
    for job in job_names:
        jobs[job] = row(job, "jobs", job, "ms")
    say("")
    say(f"jobs with {DUE} items due: ms of one round")
    say(header)
    due = {}
    for job in measured[names[0]][0]["due"]:
        due[job] = row(job, "due", job, "ms")
    say("")
    say("pages: CPU ms per request (median)")
    say(header)
    pages = {}
    statuses = {}
    for page in measured[names[0]][0]["pages"]:
        pages[page] = row(page, "pages", page, "cpu_ms")
        statuses[page] = {p["pages"][page]["status"] for n in names for p in measured[n]}
    if "large" in measured:
        say("")
        say("sequential scans at large (jobs with nothing due, pages):")
        p = measured["large"][-1]
        for section in ("jobs", "pages"):
            for item, figures in p[section].items():
                if figures.get("seq_scans"):
                    say(f"  {item}: {', '.join(figures['seq_scans'])}")

    say("")
    w, k = workers or {}, sockets or {}
    say(
        "bot turns/s: "
        + (
            "not measured here"
            if workers is None
            else f"1 worker {w.get('turns_per_s_1')}, 2 workers {w.get('turns_per_s_2')}, "
            f"ratio {w.get('ratio')}, duplicates {w.get('duplicates')}"
        )
    )
    say(
        "sockets: "
        + (
            "not measured here"
            if sockets is None
            else f"{k.get('sockets')} connecting at once: {k.get('refused')} refused; "
            f"idle socket {k.get('rss_per_idle_socket_kib')} KiB; move CPU "
            f"{k.get('move_cpu_ms')} ms, with idle sockets {k.get('move_cpu_ms_with_idle')} ms"
        )
    )

    say("")
    say("targets")
    verdicts = []

    def target(text, ok):
        mark = "n/a " if ok is None else ("PASS" if ok else "FAIL")
        verdicts.append((text, ok))
        say(f"  [{mark}] {text}")

    large = "large" in measured and "small" in measured
    for job, (_, lg, _, _) in jobs.items():
        target(
            f"job {job}, nothing due, at large ≤ {JOB_NOTHING_DUE_MS:g} ms: {fmt(lg, 2)} ms",
            lg <= JOB_NOTHING_DUE_MS if lg is not None and "large" in measured else None,
        )
    for job, (s, lg, _, _) in due.items():
        r = ratio(s, lg) if large else None
        target(
            f"job {job}, {DUE} due, large/small ≤ {WORK_DUE_BOUND:g}: {fmt(r, 2)}",
            r <= WORK_DUE_BOUND if r is not None else None,
        )
    for page, (s, lg, bs, bl) in pages.items():
        rc = ratio(s, lg) if large else None
        rb = ratio(bs, bl) if large and bs else None
        target(
            f"page {page}: CPU ×{fmt(rc, 2)} ≤ {PAGE_CPU_BOUND:g}",
            rc <= PAGE_CPU_BOUND if rc is not None else None,
        )
        target(
            f"page {page}: buffers ×{fmt(rb, 2)} ≤ {PAGE_BUFFERS_BOUND:g}",
            rb <= PAGE_BUFFERS_BOUND if rb is not None else None,
        )
        target(f"page {page}: status {sorted(statuses[page])} = 200", statuses[page] == {200})
        if page.startswith(("tournament", "api tournament")) and large:
            counts = {n: set(both(measured[n], "pages", page, "statements")) for n in names}
            target(
                f"page {page}: statements small {sorted(counts['small'])} = large "
                f"{sorted(counts['large'])}",
                counts["small"] == counts["large"] and len(counts["small"]) == 1,
            )
    if workers is None:
        target("2 workers ≥ 1.8× one, 0 duplicates: not measured here", None)
    else:
        r, dup = workers.get("ratio"), workers.get("duplicates")
        target(f"2 workers ≥ 1.8× one: ×{r}", r is not None and r >= 1.8)
        target(f"0 duplicated turns: {dup}", dup == 0)
    if sockets is None:
        for text in (
            "3,000 sockets at once, 0 refused",
            "idle socket ≤ 34 KiB",
            "move CPU with idle sockets ≤ 1.2×",
            "move ≤ 5 ms server CPU",
        ):
            target(f"{text}: not measured here", None)
    else:
        refused, count = sockets.get("refused"), sockets.get("sockets")
        kib = sockets.get("rss_per_idle_socket_kib")
        move, idle = sockets.get("move_cpu_ms"), sockets.get("move_cpu_ms_with_idle")
        target(
            f"{count} sockets at once, 0 refused: {refused}", refused == 0 and (count or 0) >= 3000
        )
        target(f"idle socket ≤ 34 KiB: {kib}", kib is not None and kib <= 34)
        r = idle / move if move and idle is not None else None
        target(f"move CPU with idle sockets ≤ 1.2×: ×{fmt(r, 2)}", r is not None and r <= 1.2)
        target(f"move ≤ 5 ms server CPU: {move}", move is not None and move <= 5)
    passed = sum(1 for _, ok in verdicts if ok)
    failed = sum(1 for _, ok in verdicts if ok is False)
    say(f"  {passed} passed, {failed} failed, {len(verdicts) - passed - failed} not measured")
    return lines


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] == "--build":
        print(json.dumps(build(sys.argv[2], float(sys.argv[3]))))
        return
    if len(sys.argv) > 2 and sys.argv[1] == "--measure":
        print(json.dumps(measure(sys.argv[2], int(sys.argv[3]))))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=["small", "large"])
    parser.add_argument("--scale", type=float, default=1.0, help="of the large database")
    parser.add_argument("--skip-sockets", action="store_true")
    parser.add_argument("--skip-workers", action="store_true")
    parser.add_argument("--keep", action="store_true", help="keep the databases afterwards")
    parser.add_argument("--out", default="bench/results/growth.json")
    args = parser.parse_args()
    began = time.perf_counter()
    server = os.environ.get("BENCH_PG", "postgres://postgres@127.0.0.1:5432")
    names = [args.only] if args.only else ["small", "large"]
    env = {
        **os.environ,
        "DJANGO_DEBUG": "1",
        "DJANGO_SETTINGS_MODULE": "shanghaien.settings",
        "DJANGO_ALLOWED_HOSTS": "testserver,localhost,127.0.0.1",
    }
    env.pop("REDIS_URL", None)
    prefix = os.environ.get("BENCH_GROWTH_DB", "bench_growth")
    urls = {n: f"{server}/{prefix}_{n}" for n in names}
    builds, measured = {}, {n: [] for n in names}
    workers = sockets = None
    try:
        for name in names:
            database = f"{prefix}_{name}"
            admin(server, f'DROP DATABASE IF EXISTS "{database}"', f'CREATE DATABASE "{database}"')
            built = child(
                [__file__, "--build", name, str(args.scale)], {**env, "DATABASE_URL": urls[name]}
            )
            if built is None:
                sys.exit(f"building {name} failed")
            builds[name] = built
        for pass_number in (1, 2):
            for name in names:
                result = child(
                    [__file__, "--measure", name, str(pass_number)],
                    {**env, "DATABASE_URL": urls[name]},
                )
                if result is None:
                    sys.exit(f"measuring {name} failed")
                measured[name].append(result)
        workers_script = ROOT / "bench" / "workers.py"
        if not args.skip_workers and workers_script.exists() and "large" in urls:
            log("bench/workers.py on the large database")
            workers = child([str(workers_script)], {**env, "DATABASE_URL": urls["large"]})
        sockets_script = ROOT / "bench" / "sockets.py"
        if not args.skip_sockets and sockets_script.exists():
            log("bench/socket_load.py --json")
            sockets = child([str(sockets_script), "--json"], {**os.environ})
    finally:
        if not args.keep:
            for name in names:
                admin(server, f'DROP DATABASE IF EXISTS "{prefix}_{name}"')
    lines = report(builds, measured, workers, sockets, args.only)
    took = time.perf_counter() - began
    lines.append(f"one run took {took / 60:.1f} min (scale {args.scale:g})")
    print("\n".join(lines))
    out = ROOT / args.out
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(
        json.dumps(
            {
                "scale": args.scale,
                "builds": builds,
                "measured": measured,
                "workers": workers,
                "sockets": sockets,
                "report": lines,
                "seconds": round(took),
            },
            indent=2,
        )
    )
    print(f"written to {args.out}")


if __name__ == "__main__":
    main()
