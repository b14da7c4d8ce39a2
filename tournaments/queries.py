"""What the tournament pages and the API read: the list (a bounded keyset page on
``tournament_list_idx``), a player's own tournaments, and one tournament whole — its
entries with their kept standings, its matches and their games — in a fixed number of
statements whatever its size.

Points are kept in halves and Sonneborn–Berger in quarters (``models``); ``halves`` and
``quarters`` write them as the pages show them.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass, field
from datetime import datetime

from django.db.models import Count, Q
from django.utils.dateparse import parse_datetime

from games.models import Game

from . import formats
from .models import Entry, Match, MatchGame, Tournament

LIST_PAGE = 30  # tournaments a page of the list shows, in each of its two parts
MINE_SHOWN = 20  # a player's own tournaments the list shows
LISTED = (Tournament.Status.SIGNUP, Tournament.Status.RUNNING)


# -- numbers as shown ------------------------------------------------------------------

_FRACTIONS = {0: "", 1: "¼", 2: "½", 3: "¾"}


def quarters(value: int) -> str:
    """4 → "1", 6 → "1½", 1 → "¼": a number kept in quarters, as the page shows it."""
    whole, part = divmod(int(value), 4)
    if whole == 0 and part:
        return _FRACTIONS[part]
    return f"{whole}{_FRACTIONS[part]}"


def halves(value: int) -> str:
    """3 → "1½": a number kept in halves."""
    return quarters(int(value) * 2)


# -- the list ------------------------------------------------------------------------------


def encode_cursor(tournament: Tournament) -> str:
    raw = f"{int(tournament.featured)}|{tournament.signup_deadline.isoformat()}|{tournament.pk}"
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[bool, datetime, int] | None:
    """The position a cursor names; None if it is not one of ours."""
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        featured, deadline, pk = raw.split("|")
        when = parse_datetime(deadline)
        if featured not in ("0", "1") or when is None or when.tzinfo is None:
            return None
        return featured == "1", when, int(pk)
    except (ValueError, binascii.Error, UnicodeDecodeError):
        return None


def listing(status: str, after: tuple[bool, datetime, int] | None = None, limit=LIST_PAGE):
    """A page of the tournaments of ``status`` (sign-up or running): featured first,
    then by sign-up deadline, in the order of ``tournament_list_idx``; each with its
    number of entrants (``entrants``). Returns (rows, whether more follow)."""
    rows = Tournament.objects.filter(status=status)
    if after is not None:
        featured, deadline, pk = after
        rows = rows.filter(
            Q(featured__lt=featured)
            | Q(featured=featured, signup_deadline__gt=deadline)
            | Q(featured=featured, signup_deadline=deadline, pk__gt=pk)
        )
    rows = list(
        rows.select_related("created_by")
        .annotate(entrants=Count("entries"))
        .order_by("-featured", "signup_deadline", "id")[: limit + 1]
    )
    return rows[:limit], len(rows) > limit


def mine(user) -> list[Tournament]:
    """The player's tournaments open or running (signed up, or made by them), newest
    deadline last, at most ``MINE_SHOWN``."""
    if not user.is_authenticated:
        return []
    entered = Entry.objects.filter(user=user).values("tournament_id")
    return list(
        Tournament.objects.filter(status__in=LISTED)
        .filter(Q(pk__in=entered) | Q(created_by=user))
        .select_related("created_by")
        .annotate(entrants=Count("entries"))
        .order_by("signup_deadline", "id")[:MINE_SHOWN]
    )


# -- one tournament ----------------------------------------------------------------------


@dataclass
class Row:
    """An entry in its group's standings, as the page shows it."""

    entry: Entry
    rank: int = 0
    cells: list = field(default_factory=list)  # the crosstable: a Match (or None) per column
    note: str = ""  # the head-to-head note when level on every number


@dataclass
class Group:
    number: int  # 0, 1, …
    rows: list[Row]
    matches: list[Match]

    @property
    def letter(self) -> str:
        return chr(ord("A") + self.number) if self.number < 26 else str(self.number + 1)


@dataclass
class Round:
    stage: int
    matches: list[Match]

    @property
    def size(self) -> int:
        """The players the round began with: 2 in a final, 4 in the semi-finals…"""
        return 2 * len(self.matches)


@dataclass
class View:
    tournament: Tournament
    entries: list[Entry]
    groups: list[Group]
    rounds: list[Round]
    places: list[Entry]  # the final places, once over
    mine: Entry | None


def _ordered(members: list[Entry], matches: list[Match]) -> list[Entry]:
    """A group's entries, first place first: its kept places once it is over, else the
    written order (``formats.order``) of the kept numbers and the decided matches."""
    if all(entry.place is not None for entry in members):
        return sorted(members, key=lambda entry: entry.place)
    table = {
        entry.pk: formats.Standing(
            entry.pk,
            entry.seed or 10_000,
            entry.match_points,
            entry.game_points,
            entry.sonneborn_berger,
            entry.matches_played,
        )
        for entry in members
    }
    results = [
        formats.Result(m.entry_a_id, m.entry_b_id, m.points_a, m.points_b, m.winner_id)
        for m in matches
        if m.status == Match.Status.DECIDED and m.entry_a_id in table and m.entry_b_id in table
    ]
    by_id = {entry.pk: entry for entry in members}
    return [by_id[pk] for pk in formats.order(table, results)]


def _level(a: Entry, b: Entry) -> bool:
    return (a.match_points, a.game_points, a.sonneborn_berger) == (
        b.match_points,
        b.game_points,
        b.sonneborn_berger,
    )


def tournament_view(tournament_id: int, user=None) -> View | None:
    """One tournament whole: four statements (the tournament, its entries, its matches,
    their games), whatever its size. None if there is none."""
    tournament = Tournament.objects.select_related("created_by", "winner").filter(pk=tournament_id)
    tournament = tournament.first()
    if tournament is None:
        return None
    entries = list(
        Entry.objects.filter(tournament=tournament)
        .select_related("user")
        .order_by("group", "seed", "joined_at", "id")
    )
    by_id = {entry.pk: entry for entry in entries}
    matches = list(Match.objects.filter(tournament=tournament).order_by("stage", "group", "slot"))
    games = (
        MatchGame.objects.filter(match__tournament=tournament)
        .select_related("game")
        .only(
            "match_id",
            "number",
            "starter_id",
            "points_a",
            "points_b",
            "game__id",
            "game__status",
        )
        .order_by("match_id", "number")
    )
    games_of: dict[int, list[MatchGame]] = {}
    for match_game in games:
        match_game.starter = by_id.get(match_game.starter_id)
        match_game.running = match_game.game.status == Game.Status.ACTIVE
        games_of.setdefault(match_game.match_id, []).append(match_game)
    for match in matches:
        match.entry_a = by_id.get(match.entry_a_id)
        match.entry_b = by_id.get(match.entry_b_id)
        match.winner = by_id.get(match.winner_id)
        match.game_list = games_of.get(match.pk, [])
        decided = match.status == Match.Status.DECIDED
        match.sides = [
            {
                "entry": entry,
                "points": halves(points) if match.games_played else "",
                "won": decided and entry is not None and match.winner_id == entry.pk,
            }
            for entry, points in ((match.entry_a, match.points_a), (match.entry_b, match.points_b))
        ]

    groups = _groups(entries, [m for m in matches if m.group is not None])
    rounds: dict[int, list[Match]] = {}
    for match in matches:
        if match.group is None:
            rounds.setdefault(match.stage, []).append(match)
    places = sorted((e for e in entries if e.final_place), key=lambda e: e.final_place)
    mine = None
    if user is not None and user.is_authenticated:
        mine = next((e for e in entries if e.user_id == user.pk), None)
    return View(
        tournament=tournament,
        entries=entries,
        groups=groups,
        rounds=[Round(stage, rows) for stage, rows in sorted(rounds.items())],
        places=places,
        mine=mine,
    )


@dataclass
class Cell:
    """A crosstable's cell: the row's match against the column, from the row's side."""

    match: Match | None
    opponent: Entry
    ours: str = ""
    theirs: str = ""
    games: list = field(default_factory=list)  # (game id, our halves, theirs, running)


def _cell(entry: Entry, other: Entry, between: dict) -> Cell:
    match = between.get(frozenset((entry.pk, other.pk)))
    if match is None:
        return Cell(None, other)
    first = match.entry_a_id == entry.pk
    ours, theirs = (match.points_a, match.points_b) if first else (match.points_b, match.points_a)
    games = []
    for match_game in match.game_list:
        a, b = match_game.points_a, match_game.points_b
        mine, other_side = (a, b) if first else (b, a)
        games.append(
            (
                match_game.game_id,
                "" if mine is None else halves(mine),
                "" if other_side is None else halves(other_side),
                match_game.running,
            )
        )
    return Cell(match, other, halves(ours), halves(theirs), games)


def _groups(entries: list[Entry], matches: list[Match]) -> list[Group]:
    """Each group's standings (the kept numbers; ties in order of the head-to-head
    match, then the seed) and crosstable."""
    members: dict[int, list[Entry]] = {}
    for entry in entries:
        if entry.group is not None:
            members.setdefault(entry.group, []).append(entry)
    played: dict[int, list[Match]] = {}
    between: dict[frozenset, Match] = {}
    for match in matches:
        played.setdefault(match.group, []).append(match)
        if match.entry_a_id and match.entry_b_id:
            between[frozenset((match.entry_a_id, match.entry_b_id))] = match
    groups = []
    for number in sorted(members):
        ordered = _ordered(members[number], played.get(number, []))
        rows = [Row(entry) for entry in ordered]
        for index, row in enumerate(rows):
            row.rank = index + 1
            row.cells = [
                None if other is row else _cell(row.entry, other.entry, between) for other in rows
            ]
            row.entry.shown_match_points = halves(row.entry.match_points)
            row.entry.shown_game_points = halves(row.entry.game_points)
            row.entry.shown_sb = quarters(row.entry.sonneborn_berger)
        for above, below in zip(rows, rows[1:], strict=False):
            if _level(above.entry, below.entry):
                match = between.get(frozenset((above.entry.pk, below.entry.pk)))
                if match is not None and match.winner_id == above.entry.pk:
                    above.note = below.entry.user.username
        groups.append(Group(number, rows, played.get(number, [])))
    return groups
