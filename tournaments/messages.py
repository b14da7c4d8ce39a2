"""The JSON of the tournaments API (``api``), declared once: the body that makes a
tournament and the answers. Points are given as the models keep them, in halves (game
and match points) and quarters (Sonneborn–Berger), whole numbers, named so."""

from __future__ import annotations

import datetime as dt
from typing import Literal

from pydantic import Field

from games.messages import BankTerms, DaysPerMove
from shanghaien.lib.schemas import Body, Message

Format = Literal["round_robin", "groups_knockout", "knockout"]
Status = Literal["signup", "running", "finished", "cancelled"]


class TournamentBody(Body):
    """A new tournament, open for sign-up until ``signup_deadline``. ``bank`` replaces
    ``days_per_move`` when given, on an invitation's terms (``games.messages.BankTerms``).
    Group size and how many go on matter for groups then knock-out only."""

    codes = {
        "name": "bad_tournament",
        "format": "bad_tournament",
        "signup_deadline": "bad_tournament",
        "description": "bad_tournament",
        "days_per_move": "bad_days_per_move",
        "bank": "bad_bank",
        "min_rating": "bad_limits",
        "max_rating": "bad_limits",
        "min_players": "bad_tournament",
        "max_players": "bad_tournament",
        "group_size": "bad_tournament",
        "advance": "bad_tournament",
    }

    name: str = Field(min_length=1, max_length=80, examples=["Autumn cup"])
    format: Format
    signup_deadline: dt.datetime = Field(strict=False, description="ISO 8601 with its offset")
    description: str = Field("", max_length=500)
    extra_wild: bool = False
    rated: bool = True
    days_per_move: DaysPerMove = 3
    bank: BankTerms | None = None
    min_rating: int | None = Field(None, ge=0, le=4000)
    max_rating: int | None = Field(None, ge=0, le=4000)
    min_players: int = Field(4, ge=2, le=256)
    max_players: int = Field(16, ge=2, le=256)
    group_size: int = Field(4, ge=2, le=16)
    advance: int = Field(2, ge=1, le=8)


class TournamentsQuery(Message):
    """The query of ``GET /api/tournaments/``: which list, and the page."""

    model_config = {"extra": "ignore", "strict": False}

    status: str = Field("signup", description="'signup' or 'running'")
    after: str | None = Field(None, description="the cursor of the next page")


class TournamentSummary(Message):
    id: int
    name: str
    featured: bool
    format: Format
    status: Status
    extra_wild: bool
    rated: bool
    days_per_move: int | None  # null with a time bank
    bank: BankTerms | None
    min_rating: int | None
    max_rating: int | None
    min_players: int
    max_players: int
    group_size: int
    advance: int
    signup_deadline: dt.datetime
    created_by: str
    entrants: int
    stage: int
    version: int


class TournamentsPage(Message):
    tournaments: list[TournamentSummary]
    next: str | None  # the address of the next page, null on the last


class Standing(Message):
    """An entry, with its group's standing (kept as games end)."""

    player: str
    status: Literal["playing", "withdrawn", "out"]
    seed: int | None
    rating: int | None
    group: int | None
    place: int | None  # in the group, once it is over
    final_place: int | None
    match_points_halves: int
    game_points_halves: int
    sonneborn_berger_quarters: int
    matches_played: int


class MatchGameView(Message):
    game: int  # its id: /api/games/<id>/
    number: int
    starter: str | None
    points_a_halves: int | None  # null while it runs
    points_b_halves: int | None


class MatchView(Message):
    stage: int
    group: int | None  # null: a knock-out match
    slot: int
    a: str | None  # null: a bye
    b: str | None
    points_a_halves: int
    points_b_halves: int
    status: Literal["waiting", "playing", "decided"]
    winner: str | None
    decided_by: str
    games: list[MatchGameView]


class GroupView(Message):
    group: int
    standings: list[Standing]  # in order


class TournamentView(TournamentSummary):
    description: str
    winner: str | None
    started_at: dt.datetime | None
    finished_at: dt.datetime | None
    entries: list[Standing]
    groups: list[GroupView]
    matches: list[MatchView]
