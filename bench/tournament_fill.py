"""Tournaments for the growth benchmark: running ones of 64 players with their entries,
matches, match games and standings, some open for sign-up, and a history of finished and
cancelled ones, written at the latest schema once ``bench/growth.py`` has migrated.

The shapes (``SHAPES``; the small database has the same kinds, fewer of them):

- ``groups``: groups then knock-out, in its groups stage (16 groups of 4, every match's
  two games started at once, about half of them over);
- ``bracket``: groups then knock-out in its round of 16 (the groups and the round of 32
  over);
- ``round32``: a knock-out of 64 in its round of 32;
- ``ready``: a knock-out of 64 in its round of 64 with every match decided but one, whose
  second game is the last one under way: when it ends (``growth.make_due``), the stage is
  over and the worker's check draws the round of 32 and starts its games. ``2 * DUE`` of
  them on each database, so that each pass advances ones no earlier pass touched.
- ``finished``: groups then knock-out, played to the final; ``cancelled``; ``signup``.

Games are copied from the benchmark's template games (``INSERT … SELECT``, as the rest of
the fill): each copy gets its own players, times and seats, the starting player of a
match's game sitting where the template's first player sat, the result the template's.
The standings follow from those results, as ``tournaments.services`` keeps them (points
in halves, Sonneborn–Berger in quarters). Tournament games are unrated (no rating changes
to invent) and their ids start at ``TOURNAMENT_BASE``, so that no other job's ``make_due``
takes them. The players' records (``PlayerRecord``, tallies) do not count them.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from datetime import timedelta

TOURNAMENT_BASE = 8_000_000  # the first tournament game's id
PLAYERS = 64
GROUP_SIZE = 4


def shapes(name: str, due: int) -> dict[str, int]:
    """How many tournaments of each kind: 100 running ones of 64 on the large database."""
    ready = 2 * due
    if name == "large":
        return {
            "ready": ready,
            "groups": 30,
            "bracket": 20,
            "round32": 100 - ready - 50,
            "signup": 20,
            "finished": 40,
            "cancelled": 10,
        }
    return {
        "ready": ready,
        "groups": 1,
        "bracket": 1,
        "round32": 1,
        "signup": 2,
        "finished": 2,
        "cancelled": 1,
    }


# The two pages measured (``/tournaments/<id>/``): found again by name on either database.
SHOWCASE = {"groups": "Groups stage 1", "bracket": "Knock-out stage 1"}


def log(*parts) -> None:
    import sys

    print(*parts, file=sys.stderr, flush=True)


@dataclass
class Templates:
    """The template games: (id, first player's seat, winner's seat or None, scores)
    finished;
    (id, first player's seat, seat to move) under way."""

    finished: list[tuple[int, int, int | None, tuple[int, int]]]
    active: list[tuple[int, int, int]]


@dataclass
class Plan:
    tournaments: list = field(default_factory=list)
    entries: list = field(default_factory=list)
    matches: list = field(default_factory=list)
    # (match, number, starter entry, game id) and the game rows for the copy
    match_games: list = field(default_factory=list)
    games: list = field(default_factory=list)
    next_game: int = TOURNAMENT_BASE + 1


def templates() -> Templates:
    from games.models import Event, Game

    rows = Game.objects.filter(pk__lt=1_000_000).order_by("pk")
    firsts = dict(
        Event.objects.filter(game__in=rows, seq=1).values_list("game_id", "payload__first_player")
    )
    finished, active = [], []
    for game in rows.prefetch_related("seats"):
        seats = {s.user_id: s.seat for s in game.seats.all()}
        first = firsts.get(game.pk)
        if first is None or len(seats) != 2:
            continue
        if game.status == "finished":
            scores = (game.score0 or 0, game.score1 or 0)
            finished.append((game.pk, first, seats.get(game.winner_id), scores))
        elif game.status == "active" and game.to_move_id in seats:
            active.append((game.pk, first, seats[game.to_move_id]))
    return Templates(finished, active)


class Builder:
    """The rows of one database's tournaments, planned in memory, then written. The
    draw, pairings, standings and places are ``tournaments.formats``'s, as the services
    make them (entries are keyed by ``id()`` there: unsaved rows are not hashable)."""

    def __init__(self, players: list[tuple[int, int]], tpl: Templates, now, seed: int = 37):
        self.players = players  # (user id, rating)
        self.tpl, self.now = tpl, now
        self.rng = random.Random(seed)
        self.plan = Plan()

    # -- games --------------------------------------------------------------------------

    def game(self, match, number, starter, began, over_at=None, mover=None):
        """A copied game of ``match``: ``starter`` begins; finished at ``over_at`` with the
        template's result, else under way (``mover`` to move, when given)."""
        other = match.entry_b if starter is match.entry_a else match.entry_a
        game_id = self.plan.next_game
        self.plan.next_game += 1
        if over_at is None:
            pool = self.tpl.active
            if mover is not None:  # a template whose seat to move is the mover's
                pool = [t for t in pool if (t[1] == t[2]) == (mover is starter)] or pool
            tpl, first, turn = self.rng.choice(pool)
        else:
            tpl, first, win_seat, scores = self.rng.choice(self.tpl.finished)
        seats = [None, None]
        seats[first], seats[1 - first] = starter, other
        row = {"id": game_id, "tpl": tpl, "p0": seats[0].user_id, "p1": seats[1].user_id}
        if over_at is None:
            # the turn began within the last 20 hours: nothing due for days
            turn_at = self.now - timedelta(minutes=self.rng.randint(1, 1200))
            row.update(status="active", began=began, over=None, winner=None, turn=turn_at)
            row["to_move"] = seats[turn].user_id
            self.plan.games.append(row)
            self.plan.match_games.append((match, number, starter, game_id))
            return
        winner = seats[win_seat] if win_seat is not None else None
        row.update(status="finished", began=began, over=over_at, to_move=None, turn=None)
        row["winner"] = winner.user_id if winner else None
        self.plan.games.append(row)
        pa = 1 if winner is None else (2 if winner is match.entry_a else 0)
        a_seat = 0 if seats[0] is match.entry_a else 1
        sa, sb = scores[a_seat], scores[1 - a_seat]
        self.plan.match_games.append((match, number, starter, game_id, pa, 2 - pa, sa, sb))
        match.points_a += pa
        match.points_b += 2 - pa
        match.games_played += 1
        match.scores = (match.scores[0] + sa, match.scores[1] + sb)

    # -- matches ------------------------------------------------------------------------

    def match(self, t, stage, slot, a, b, group=None):
        from tournaments.models import Match

        match = Match(tournament=t, stage=stage, group=group, slot=slot, entry_a=a, entry_b=b)
        match.scores = (0, 0)
        self.plan.matches.append(match)
        return match

    def play(self, match, began, until, over: bool, last: bool = False):
        """Play ``match``'s games, begun at ``began``, over by ``until``: all of them
        (``over``), or one or both of its two still under way. ``last``: its second game
        alone under way, the loser of the first to move (resigning decides the match)."""
        from tournaments import formats

        a, b = match.entry_a, match.entry_b
        knockout = match.group is None
        span = max((until - began).total_seconds(), 7200)

        def moment():
            return began + timedelta(seconds=self.rng.uniform(0.05, 0.9) * span)

        open_games = 0 if over else (1 if last else self.rng.choice([1, 2, 2]))
        self.game(match, 1, a, began, over_at=moment() if open_games < 2 else None)
        if open_games:
            mover = None
            if last:
                mover = b if match.points_a > match.points_b else a
            self.game(match, 2, b, began, mover=mover)
            match.status = "playing"
            return
        self.game(match, 2, b, began, over_at=moment())
        decided = began + timedelta(seconds=0.95 * span)
        match.decided_by = "games"
        if match.points_a == match.points_b and knockout:
            # the third game: the higher seed begins
            third = a if a.seed <= b.seed else b
            self.game(match, 3, third, began, over_at=decided - timedelta(minutes=5))
            if match.points_a == match.points_b:
                match.decided_by = "tiebreak"
        match.status, match.decided_at = "decided", decided
        if knockout:
            side = formats.knockout_winner(
                match.points_a, match.points_b, *match.scores, a.seed, b.seed
            )
            match.winner = a if side == "a" else b
            (b if side == "a" else a).status = "out"
        elif match.points_a != match.points_b:
            match.winner = a if match.points_a > match.points_b else b

    # -- stages -------------------------------------------------------------------------

    def tournament(self, name, fmt, status, started_days: float, stage=0):
        from tournaments.models import Tournament

        started = self.now - timedelta(days=started_days)
        t = Tournament(
            name=name,
            created_by_id=self.rng.choice(self.players)[0],
            format=fmt,
            status=status,
            rated=False,
            days_per_move=3,
            min_players=8,
            max_players=PLAYERS,
            group_size=GROUP_SIZE,
            advance=2,
            signup_deadline=started,
            started_at=started if status != "signup" else None,
            stage=stage,
        )
        self.plan.tournaments.append(t)
        return t

    def entries(self, t, count=PLAYERS, seeded=True):
        """``count`` players, seeded by rating (1: the highest) when ``seeded``."""
        from tournaments.models import Entry

        chosen = self.rng.sample(self.players, count)
        chosen.sort(key=lambda p: (-p[1], p[0]))
        rows = []
        for seed, (user, rating) in enumerate(chosen, start=1):
            entry = Entry(tournament=t, user_id=user, status="playing")
            if seeded:
                entry.rating, entry.seed = rating, seed
            rows.append(entry)
        self.plan.entries += rows
        return rows

    def groups(self, t, entries, began, until, over: bool):
        """Groups by rating snake, every match of each group under way at once (about half
        decided unless ``over``), the standings of the decided ones. Each group's entries
        in their place order when ``over``."""
        from tournaments import formats

        dealt = formats.snake(entries, formats.group_count(len(entries), t.group_size))
        slot, placed = 0, []
        for g, members in enumerate(dealt):
            matches = []
            for a, b in formats.round_robin(members):
                m = self.match(t, 1, slot, a, b, group=g)
                slot += 1
                self.play(m, began, until, over=over or self.rng.random() < 0.5)
                matches.append(m)
            for e in members:
                e.group = g
            results = [
                formats.Result(
                    id(m.entry_a),
                    id(m.entry_b),
                    m.points_a,
                    m.points_b,
                    id(m.winner) if m.winner else None,
                )
                for m in matches
                if m.status == "decided"
            ]
            table = formats.tally({id(e): e.seed for e in members}, results)
            for e in members:
                line = table[id(e)]
                e.match_points, e.game_points = line.match_points, line.game_points
                e.sonneborn_berger, e.matches_played = line.sonneborn_berger, line.played
            if over:
                by_key = {id(e): e for e in members}
                ordered = [by_key[k] for k in formats.order(table, results)]
                for place, e in enumerate(ordered, start=1):
                    e.place = place
                    if place > t.advance:
                        e.status = "out"
                placed.append(ordered)
        return placed if over else None

    def knockout(self, t, stage, pairs, began, until, over: bool, ready: bool = False):
        """A knock-out round of ``pairs``: every match over, or about half of them still
        playing; ``ready``: all decided but the last, with one game left. The winners, in
        bracket order, when over."""
        matches = []
        for slot, (a, b) in enumerate(pairs):
            m = self.match(t, stage, slot, a, b)
            if ready:
                last = slot == len(pairs) - 1
                self.play(m, began, until, over=not last, last=last)
            else:
                self.play(m, began, until, over=over or self.rng.random() < 0.5)
            matches.append(m)
        return [m.winner for m in matches] if over else None

    @staticmethod
    def seeded_pairs(ranked):
        """The first round of a knock-out of ``ranked`` (best first): 1 against 64, …"""
        from tournaments import formats

        return [(ranked[a - 1], ranked[b - 1]) for a, b in formats.bracket(len(ranked))]

    @staticmethod
    def from_groups(placed, advance):
        """The knock-out's first round from the groups' places, as the services seed it."""
        from tournaments import formats

        by_key = {id(e): e for members in placed for e in members}
        keys = formats.qualifiers([[id(e) for e in members] for members in placed], advance)
        return Builder.seeded_pairs([by_key[k] for k in keys])

    @staticmethod
    def next_pairs(winners):
        return [(winners[i], winners[i + 1]) for i in range(0, len(winners), 2)]

    # -- the kinds ----------------------------------------------------------------------

    def build(self, kinds: dict[str, int]) -> None:
        now = self.now
        # the ready ones first: the lowest ids of the running knock-outs (growth.make_due)
        for k in range(kinds["ready"]):
            t = self.tournament(f"Knock-out {k + 1}", "knockout", "running", 2.0, stage=1)
            pairs = self.seeded_pairs(self.entries(t))
            self.knockout(t, 1, pairs, t.started_at, now, over=False, ready=True)
        for k in range(kinds["groups"]):
            days = self.rng.uniform(1, 6)
            t = self.tournament(f"Groups stage {k + 1}", "groups_knockout", "running", days, 1)
            self.groups(t, self.entries(t), t.started_at, now, over=False)
        for k in range(kinds["bracket"]):
            t = self.tournament(f"Knock-out stage {k + 1}", "groups_knockout", "running", 20)
            self.finals(t, self.entries(t), upto=3)
        for k in range(kinds["round32"]):
            n = kinds["ready"] + k + 1
            t = self.tournament(f"Knock-out {n}", "knockout", "running", 8, stage=2)
            middle = now - timedelta(days=3)
            pairs = self.seeded_pairs(self.entries(t))
            winners = self.knockout(t, 1, pairs, t.started_at, middle, over=True)
            self.knockout(t, 2, self.next_pairs(winners), middle, now, over=False)
        for k in range(kinds["finished"]):
            t = self.tournament(f"Cup {k + 1}", "groups_knockout", "finished", 40 + 10 * k)
            self.finals(t, self.entries(t), upto=None)
        for k in range(kinds["cancelled"]):
            t = self.tournament(f"Cancelled cup {k + 1}", "knockout", "cancelled", 30 + k)
            t.finished_at = t.started_at
            self.entries(t, count=self.rng.randint(2, 6), seeded=False)
        for k in range(kinds["signup"]):
            t = self.tournament(f"Open cup {k + 1}", "groups_knockout", "signup", -(3 + k % 10))
            t.featured = k % 5 == 0
            t.check_at = t.signup_deadline  # the start, on the worker's index
            self.entries(t, count=self.rng.randint(3, 40), seeded=False)
        for t in self.plan.tournaments:
            t.version = 1 + 10 * t.stage

    def finals(self, t, entries, upto: int | None):
        """Groups (stage 1), then knock-out rounds (stage 2 on): every stage before
        ``upto`` over, ``upto`` under way; all of them and the final places when None."""
        from tournaments import formats

        start = t.started_at
        step = (self.now - start) / (7 if upto is None else upto)
        placed = self.groups(t, entries, start, start + step, over=True)
        pairs, stage, rounds = self.from_groups(placed, t.advance), 2, []
        while pairs:
            began = start + step * (stage - 1)
            if stage == upto:
                t.stage = stage
                self.knockout(t, stage, pairs, began, self.now, over=False)
                return
            winners = self.knockout(t, stage, pairs, began, began + step, over=True)
            rounds.append(self.plan.matches[-len(pairs) :])
            pairs = self.next_pairs(winners) if len(winners) > 1 else []
            stage += 1
        final = rounds[-1][0]
        t.stage, t.winner_id, t.finished_at = stage - 1, final.winner.user_id, final.decided_at
        # the knock-out's places by round, then the groups' thirds, fourths, … sharing
        by_round = formats.knockout_places(len(rounds))
        final.winner.final_place = 1
        for r, matches in enumerate(rounds):
            for m in matches:
                (m.entry_b if m.winner is m.entry_a else m.entry_a).final_place = by_round[r]
        base = 2 * len(rounds[0])  # the knock-out's players
        for place in range(t.advance + 1, GROUP_SIZE + 1):
            for e in entries:
                if e.final_place is None and e.place == place:
                    e.final_place = base + 1
            base += sum(1 for e in entries if e.place == place)


def fill(name: str, due: int, copy, user_base: int, skip: list[str]) -> dict:
    """Write the tournaments of database ``name`` (``copy``: ``growth.copy``; the players
    above ``user_base`` but ``skip``); what was written."""
    from django.apps import apps
    from django.contrib.auth import get_user_model
    from django.db import connection, transaction
    from django.utils import timezone

    if not apps.is_installed("tournaments"):
        return {}
    from games.models import Command, Event, Game, GameAnalysis, Seat
    from ratings.models import PlayerRating
    from tournaments.models import Entry, Match, MatchGame, Tournament

    started = time.perf_counter()
    now = timezone.now()
    users = get_user_model()
    ratings = dict(PlayerRating.objects.values_list("user_id", "rating"))
    # the players of the benchmark, not player1 and player2 (the history pages'): their
    # pages stay what they were
    ids = list(
        users.objects.filter(pk__gt=user_base, bot_level="")
        .exclude(username__in=skip)
        .order_by("pk")
        .values_list("pk", flat=True)
    )
    players = [(pk, round(ratings.get(pk, 1500))) for pk in ids]
    builder = Builder(players, templates(), now)
    builder.build(shapes(name, due))
    plan = builder.plan
    log(
        f"  tournaments planned: {len(plan.tournaments)}, {len(plan.entries):,} entries, "
        f"{len(plan.matches):,} matches, {len(plan.games):,} games "
        f"in {time.perf_counter() - started:.1f} s"
    )
    with transaction.atomic():
        Tournament.objects.bulk_create(plan.tournaments)
        Entry.objects.bulk_create(plan.entries, batch_size=2000)
        for m in plan.matches:
            m.tournament_id = m.tournament.pk
        Match.objects.bulk_create(plan.matches, batch_size=2000)
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL session_replication_role = replica")
            cursor.execute(
                "CREATE TEMP TABLE map_tournament (id bigint, tpl bigint, p0 bigint, "
                "p1 bigint, status text, began timestamptz, over timestamptz, "
                "winner bigint, to_move bigint, turn timestamptz) ON COMMIT DROP"
            )
            cursor.executemany(
                "INSERT INTO map_tournament VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
                [
                    (
                        g["id"], g["tpl"], g["p0"], g["p1"], g["status"], g["began"],
                        g["over"], g["winner"], g["to_move"], g.get("turn"),
                    )
                    for g in plan.games
                ],
            )  # fmt: skip
            counts = {}
            # a finished template gives a finished game, an active one a game under way
            counts["tournament games"] = copy(
                cursor,
                Game,
                {
                    "id": "m.id",
                    "rated": "false",
                    "winner_id": "m.winner",
                    "to_move_id": "m.to_move",
                    "created_at": "m.began",
                    "last_move_at": "coalesce(m.over, m.turn)",
                    "finished_at": "m.over",
                    "turn_started_at": "coalesce(m.over, m.turn)",
                    "deadline": "CASE WHEN m.over IS NULL THEN m.turn + interval '3 days' END",
                    # the reminder, at a fifth of the time left
                    "due_at": "CASE WHEN m.over IS NULL THEN m.turn + interval '2.4 days' END",
                    "days_per_move": "3",
                    "listed": "false",  # a tournament's games are not on the live page
                },
                "JOIN map_tournament m ON m.tpl = t.id",
            )
            opponent = "CASE t.seat WHEN 0 THEN m.p1 ELSE m.p0 END"
            me = "CASE t.seat WHEN 0 THEN m.p0 ELSE m.p1 END"
            counts["tournament seats"] = copy(
                cursor,
                Seat,
                {
                    "game_id": "m.id",
                    "user_id": me,
                    "open_sockets": "0",
                    "socket_seen_at": "NULL",
                    "ended_at": "m.over",
                    "opponent_id": f"CASE WHEN m.over IS NOT NULL THEN {opponent} END",
                    "outcome": f"CASE WHEN m.over IS NULL THEN NULL WHEN m.winner IS NULL "
                    f"THEN 'drawn' WHEN m.winner = {me} THEN 'won' ELSE 'lost' END",
                    "extra_wild": "CASE WHEN m.over IS NOT NULL THEN g.extra_wild END",
                    "rated": "CASE WHEN m.over IS NOT NULL THEN false END",
                },
                f'JOIN map_tournament m ON m.tpl = t.game_id JOIN "{Game._meta.db_table}" g '
                "ON g.id = m.id",
            )
            for model, label in ((Event, "events"), (Command, "commands")):
                counts[f"tournament {label}"] = copy(
                    cursor,
                    model,
                    {"game_id": "m.id", "created_at": "coalesce(m.over, m.turn)"},
                    "JOIN map_tournament m ON m.tpl = t.game_id",
                )
            analysed = GameAnalysis.objects.filter(status="ready").order_by("pk").first()
            if analysed is not None:
                counts["tournament analyses"] = copy(
                    cursor,
                    GameAnalysis,
                    {
                        "game_id": "m.id",
                        "created_at": "m.over",
                        "computed_at": "m.over",
                        "finished_at": "m.over",
                    },
                    "JOIN map_tournament m ON m.over IS NOT NULL",
                    f"t.game_id = {analysed.pk}",
                )
            cursor.execute("SET LOCAL session_replication_role = DEFAULT")
            table = Game._meta.db_table
            cursor.execute(
                f"SELECT setval(pg_get_serial_sequence('\"{table}\"', 'id'), "
                f'(SELECT max(id) FROM "{table}"))'
            )
        rows = []
        for mg in plan.match_games:
            match, number, starter, game_id = mg[:4]
            points = mg[4:] or (None, None, None, None)
            row = MatchGame(match_id=match.pk, game_id=game_id, number=number)
            row.starter_id = starter.pk
            row.points_a, row.points_b = points[:2]
            if hasattr(row, "score_a"):  # the tie-break's scores, when the schema has them
                row.score_a, row.score_b = points[2:]
            rows.append(row)
        MatchGame.objects.bulk_create(rows, batch_size=2000)
    counts.update(
        {
            "tournaments": len(plan.tournaments),
            "tournaments running": sum(1 for t in plan.tournaments if t.status == "running"),
            "entries": len(plan.entries),
            "matches": len(plan.matches),
            "match games": len(rows),
            "tournament fill (s)": round(time.perf_counter() - started, 1),
        }
    )
    log(f"  tournaments written in {counts['tournament fill (s)']} s")
    return counts
