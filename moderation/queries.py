"""What the moderators' console reads: a page of open reports, oldest first, each with
its message in its chat context, its game's players, and the reported player's
moderation history. A fixed number of statements whatever the page holds."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from django.core.paginator import Paginator
from django.db.models import Count, F, OuterRef, Q, Subquery, Window
from django.db.models.functions import RowNumber

from games.models import ChatMessage, Seat

from .models import AuditEntry, Report
from .services import reported_player

PER_PAGE = 10
CONTEXT = 3  # messages shown before and after the reported one
# The actions of the audit log a player's history counts, by the name the page gives them.
HISTORY = {"warn": "warnings", "suspend": "suspensions", "hide_message": "hidden"}


@dataclass
class Case:
    """One open report as the console shows it."""

    report: Report
    players: tuple = ()
    reported: object = None
    chat: list = field(default_factory=list)  # the message with its context, in order
    history: dict = field(default_factory=dict)


def open_reports():
    """The open reports, oldest first (``report_open_idx``)."""
    return (
        Report.objects.filter(status=Report.Status.OPEN)
        .select_related("reporter", "game", "message__user")
        .order_by("created_at", "id")
    )


def console_page(number):
    """The page ``number`` of open reports (Django's paginator: a bounded OFFSET; a
    number out of range is the last page) and its cases."""
    page = Paginator(open_reports(), PER_PAGE).get_page(number)
    reports = list(page.object_list)
    cases = [Case(report) for report in reports]
    players = _players({r.game_id or r.message.game_id for r in reports})
    chats = _chats([r.message for r in reports if r.message_id])
    for case in cases:
        report = case.report
        game_id = report.message.game_id if report.message_id else report.game_id
        case.players = players.get(game_id, ())
        case.reported = reported_player(report, case.players)
        case.chat = chats.get(report.message_id, [])
    _histories(cases)
    return page, cases


def _players(game_ids) -> dict[int, tuple]:
    """The two players of each game, by seat: one statement."""
    seats = Seat.objects.filter(game_id__in=game_ids).select_related("user").order_by("seat")
    players = defaultdict(list)
    for seat in seats:
        players[seat.game_id].append(seat.user)
    return {game_id: tuple(users) for game_id, users in players.items()}


def _chats(messages) -> dict[int, list]:
    """Each reported message with up to ``CONTEXT`` messages of its game's chat before
    and after it, hidden ones included (marked): two statements for the whole page.

    Each message's place in its game's chat is numbered (a window function over the
    chat's order); the first statement finds the reported messages' places, the second
    the messages around them."""
    if not messages:
        return {}
    games = {m.game_id for m in messages}
    # a reported message's place: the messages of its game up to it, in the chat's order
    # (a condition on the numbered rows below would number the reported ones alone)
    up_to = (
        ChatMessage.objects.filter(game_id=OuterRef("game_id"))
        .filter(
            Q(created_at__lt=OuterRef("created_at"))
            | Q(created_at=OuterRef("created_at"), id__lte=OuterRef("id"))
        )
        .order_by()
        .values("game_id")
        .annotate(n=Count("id"))
        .values("n")
    )
    places = {
        row["pk"]: (row["game_id"], row["place"])
        for row in ChatMessage.objects.filter(pk__in=[m.pk for m in messages])
        .order_by()
        .annotate(place=Subquery(up_to))
        .values("pk", "game_id", "place")
    }
    numbered = ChatMessage.objects.filter(game_id__in=games).annotate(
        place=Window(RowNumber(), partition_by=[F("game_id")], order_by=[F("created_at"), F("id")])
    )
    around = Q()
    for game_id, place in places.values():
        around |= Q(game_id=game_id, place__gte=place - CONTEXT, place__lte=place + CONTEXT)
    rows = list(numbered.filter(around).select_related("user").order_by("game_id", "place"))
    chats = {}
    for pk, (game_id, place) in places.items():
        chats[pk] = [
            row
            for row in rows
            if row.game_id == game_id and place - CONTEXT <= row.place <= place + CONTEXT
        ]
    return chats


def _histories(cases) -> None:
    """Each reported player's moderation history: their warnings, suspensions and hidden
    messages in the audit log (one statement, on ``audit_target_idx``)."""
    ids = {str(case.reported.pk) for case in cases if case.reported is not None}
    counts = defaultdict(dict)
    rows = (
        AuditEntry.objects.filter(target_type="user", target_id__in=ids)
        .filter(action__in=["warn", "suspend"])
        .values("target_id", "action")
        .annotate(n=Count("id"))
    )
    for row in rows:
        counts[row["target_id"]][HISTORY[row["action"]]] = row["n"]
    hidden = (
        ChatMessage.objects.filter(user_id__in=[int(i) for i in ids], hidden=True)
        .order_by()
        .values("user_id")
        .annotate(n=Count("id"))
    )
    for row in hidden:
        counts[str(row["user_id"])]["hidden"] = row["n"]
    for case in cases:
        if case.reported is not None:
            history = counts.get(str(case.reported.pk), {})
            case.history = {name: history.get(name, 0) for name in HISTORY.values()}
