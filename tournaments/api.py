"""The tournaments' JSON API (mounted by ``shanghaien.api_site``; bodies and answers in
``messages``; docs/api.md): the list, making one, one tournament whole, and signing up,
leaving, withdrawing, starting early and cancelling. Thin: ``queries`` reads, the
services write; their typed errors become the envelope."""

from __future__ import annotations

from urllib.parse import urlencode

from django.http import JsonResponse
from django.utils.translation import gettext as _
from ninja import Query, Router

from games.serializers import bank_json
from shanghaien.lib.errors import BadRequest, NotFound
from shanghaien.lib.input import parse_id
from shanghaien.lib.schemas import refusals

from . import queries
from .messages import TournamentBody, TournamentsPage, TournamentsQuery, TournamentView
from .models import Tournament
from .services import entries, stages

router = Router(tags=["tournaments"])


def summary_json(t: Tournament, entrants: int) -> dict:
    banked = t.bank_start_hours is not None
    return {
        "id": t.pk,
        "name": t.name,
        "featured": t.featured,
        "format": t.format,
        "status": t.status,
        "extra_wild": t.extra_wild,
        "rated": t.rated,
        "days_per_move": None if banked else t.days_per_move,
        "bank": bank_json(t),
        "min_rating": t.min_rating,
        "max_rating": t.max_rating,
        "min_players": t.min_players,
        "max_players": t.max_players,
        "group_size": t.group_size,
        "advance": t.advance,
        "signup_deadline": t.signup_deadline.isoformat(),
        "created_by": t.created_by.username,
        "entrants": entrants,
        "stage": t.stage,
        "version": t.version,
    }


def _standing(entry) -> dict:
    return {
        "player": entry.user.username,
        "status": entry.status,
        "seed": entry.seed,
        "rating": entry.rating,
        "group": entry.group,
        "place": entry.place,
        "final_place": entry.final_place,
        "match_points_halves": entry.match_points,
        "game_points_halves": entry.game_points,
        "sonneborn_berger_quarters": entry.sonneborn_berger,
        "matches_played": entry.matches_played,
    }


def _name(entry) -> str | None:
    return entry.user.username if entry is not None else None


def view_json(view: queries.View) -> dict:
    t = view.tournament
    matches = []
    for group in view.groups:
        matches += group.matches
    for round_ in view.rounds:
        matches += round_.matches
    return {
        **summary_json(t, len(view.entries)),
        "description": t.description,
        "winner": t.winner.username if t.winner_id else None,
        "started_at": t.started_at.isoformat() if t.started_at else None,
        "finished_at": t.finished_at.isoformat() if t.finished_at else None,
        "entries": [_standing(e) for e in view.entries],
        "groups": [
            {"group": g.number, "standings": [_standing(row.entry) for row in g.rows]}
            for g in view.groups
        ],
        "matches": [
            {
                "stage": m.stage,
                "group": m.group,
                "slot": m.slot,
                "a": _name(m.entry_a),
                "b": _name(m.entry_b),
                "points_a_halves": m.points_a,
                "points_b_halves": m.points_b,
                "status": m.status,
                "winner": _name(m.winner),
                "decided_by": m.decided_by,
                "games": [
                    {
                        "game": g.game_id,
                        "number": g.number,
                        "starter": _name(g.starter),
                        "points_a_halves": g.points_a,
                        "points_b_halves": g.points_b,
                    }
                    for g in m.game_list
                ],
            }
            for m in sorted(matches, key=lambda m: (m.stage, m.slot))
        ],
    }


def _tournament(request, pk) -> JsonResponse:
    view = queries.tournament_view(pk, request.user)
    if view is None:
        raise NotFound("not_found", _("No such tournament."))
    return JsonResponse(view_json(view))


def _id(pk: str) -> int:
    number = parse_id(pk)
    if number is None:
        raise NotFound("not_found", _("No such tournament."))
    return number


@router.get(
    "/tournaments/", response={200: TournamentsPage, **refusals()}, url_name="api_tournaments"
)
def tournaments(request, query: Query[TournamentsQuery]):
    """A page of the tournaments open for sign-up (``status=signup``) or running
    (``running``): featured first, then by sign-up deadline; ``next`` is the address of
    the page after it (null on the last)."""
    if query.status not in queries.LISTED:
        raise BadRequest("bad_status", _("The status is 'signup' or 'running'."))
    after = None
    if query.after:
        after = queries.decode_cursor(query.after)
        if after is None:
            raise BadRequest(
                "bad_cursor", _("Not a page of this list: follow the 'next' address given.")
            )
    rows, more = queries.listing(query.status, after)
    follow = None
    if more and rows:
        cursor = queries.encode_cursor(rows[-1])
        follow = f"{request.path}?{urlencode({'status': query.status, 'after': cursor})}"
    body = [summary_json(t, t.entrants) for t in rows]
    return JsonResponse({"tournaments": body, "next": follow})


@router.post(
    "/tournaments/",
    response={201: TournamentView, **refusals(409, 429)},
    url_name="api_tournament_new",
)
def create(request, body: TournamentBody):
    """Make a tournament, open for sign-up until its deadline (the maker is not entered:
    they sign up like anyone)."""
    # the bank as a dict of its terms, or None (``games.services.invitations.check_bank``)
    tournament = entries.do_create(request.user, **body.model_dump())
    response = _tournament(request, tournament.pk)
    response.status_code = 201
    return response


@router.get(
    "/tournaments/{pk}/",
    response={200: TournamentView, **refusals(404)},
    url_name="api_tournament",
)
def tournament(request, pk: str):
    """One tournament whole: its terms, entries with their standings, each group's
    standings in order, every match with its games' ids."""
    return _tournament(request, _id(pk))


def _action(name: str, do, doc: str):
    @router.post(
        f"/tournaments/{{pk}}/{name}/",
        response={200: TournamentView, **refusals(404, 409, 429)},
        url_name=f"api_tournament_{name}",
        operation_id=f"tournament_{name}",
        summary=doc.split(".")[0],
        description=doc,
    )
    def act(request, pk: str):
        number = _id(pk)
        do(number, request.user)
        return _tournament(request, number)

    return act


join = _action("join", entries.do_join, "Sign up, before the start.")
leave = _action("leave", entries.do_leave, "Take back a sign-up, before the start.")
withdraw = _action(
    "withdraw",
    entries.do_withdraw,
    "Withdraw from a running tournament: the remaining games and matches are forfeited.",
)
start = _action(
    "start",
    lambda pk, user: stages.do_start(pk, user=user),
    "Start before the deadline (the maker, with enough players signed up).",
)
cancel = _action(
    "cancel", entries.do_cancel, "Cancel (the maker before the start, staff at any time)."
)
