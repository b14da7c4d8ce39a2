"""The games' JSON API: thin views over the services. Every body and answer is declared
in ``games.messages``; the API itself (errors, authentication) is ``shanghaien.api_site``."""

from __future__ import annotations

from urllib.parse import urlencode

from django.core.handlers.asgi import ASGIRequest
from django.http import JsonResponse
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.gzip import gzip_page
from ninja import Query, Router
from ninja.decorators import decorate_view

from accounts import name_search as search
from shanghaien.lib.errors import BadRequest, Forbidden
from shanghaien.lib.schemas import refusals

from . import history, people, queries
from .access import access_game
from .live import streams
from .live.reads import game_now
from .messages import (
    Accepted,
    AccountStreamLine,
    Chat,
    ChatBody,
    ChatLine,
    CommitmentShown,
    Export,
    GamesPage,
    GamesQuery,
    GameStreamLine,
    GameStreamQuery,
    GameView,
    Invitation,
    InvitationBody,
    Invitations,
    MoveAnswer,
    MoveBody,
    Note,
    NoteBody,
    PlayersFound,
    PlayersQuery,
    Replay,
    Seeds,
    stream_response,
)
from .rules import fairness
from .serializers import chat_json, game_summary, invitation_json, note_json, recent_chat
from .services import chat, commands, commitments, endings, notes
from .services import invitations as invites

router = Router(tags=["games"])
NO_SEEDS = Seeds()
NO_INVITATION = InvitationBody()


# -- invitations ----------------------------------------------------------------------------


@router.get(
    "/invitations/",
    response={200: Invitations, **refusals()},
    url_name="api_invitations",
    by_alias=True,
)
def invitations(request):
    """The open invitations the player may answer or withdraw (the ones open to anyone
    whose limits the player misses apart, with the reason), and the server's commitment
    for the next one the player sends."""
    lists = queries.invitations_for(request.user)
    body = {k: [invitation_json(i) for i in lists[k]] for k in ("received", "sent", "open")}
    body["not_for_you"] = [{**invitation_json(i), "reason": r} for i, r in lists["not_for_you"]]
    return JsonResponse({**body, "commitment": commitments.shown(request.user).commitment})


@router.post("/invitations/", response={201: Invitation, **refusals(404, 409, 429)}, by_alias=True)
def invite(request, body: InvitationBody = NO_INVITATION):
    """Invite a player by name, or anyone (``to`` left out), who may be limited to a
    rating range and a pace."""
    invitation = invites.do_invite(
        request.user,
        to=body.to,
        extra_wild=body.extra_wild,
        days_per_move=body.days_per_move,
        message=body.message,
        rated=body.rated,
        client_seed=body.client_seed,
        commitment=body.commitment,
        min_rating=body.min_rating,
        max_rating=body.max_rating,
        max_pace=body.max_pace,
        bank=body.bank.model_dump() if body.bank else None,
    )
    return JsonResponse(invitation_json(invitation), status=201)


@router.get(
    "/commitment/", response={200: CommitmentShown, **refusals()}, url_name="api_commitment"
)
def commitment(request):
    """The server's commitment for the player's next invitation or rematch: send it back
    with your seed (``docs/fairness.md``)."""
    pending = commitments.shown(request.user)
    return JsonResponse(
        {
            "commitment": pending.commitment,
            "scheme": fairness.SCHEME,
            "made_at": pending.made_at.isoformat(),
        }
    )


@router.post(
    "/invitations/{pk}/accept/",
    response={201: Accepted, **refusals(404, 409, 429)},
    url_name="api_invitation_accept",
)
def invitation_accept(request, pk: str, body: Seeds = NO_SEEDS):
    """Accept an invitation: the game starts (send your seed for the dice). An open
    invitation whose limits the player misses is refused (403 ``outside_limits``)."""
    game = invites.do_accept_invitation(
        pk, request.user, client_seed=body.client_seed, commitment=body.commitment
    )
    return JsonResponse({"game": game.pk}, status=201)


@router.post(
    "/invitations/{pk}/decline/",
    response={200: Invitation, **refusals(404, 409)},
    url_name="api_invitation_decline",
    by_alias=True,
)
def invitation_decline(request, pk: str):
    return JsonResponse(invitation_json(invites.do_decline_invitation(pk, request.user)))


@router.post(
    "/invitations/{pk}/cancel/",
    response={200: Invitation, **refusals(404, 409)},
    url_name="api_invitation_cancel",
    by_alias=True,
)
def invitation_cancel(request, pk: str):
    return JsonResponse(invitation_json(invites.do_cancel_invitation(pk, request.user)))


# -- games ----------------------------------------------------------------------------------


@router.get("/games/", response={200: GamesPage, **refusals()}, url_name="api_games")
def games(request, query: Query[GamesQuery]):
    """A page of the player's games, narrowed by the filters given, and in ``next`` the
    address of the page after it, with the same filters (null on the last page)."""
    status = query.status
    cursor = query.after if status == "active" else query.before
    if status not in ("active", "finished"):
        raise BadRequest("bad_status", _("The status is 'active' or 'finished'."))
    filters = queries.filters_of(
        query.opponent or "", query.variant or "", query.rated or "", query.result or ""
    )
    try:
        if filters is None:  # no player of that name: no game
            page = queries.Page([], None)
        elif status == "active":
            page = queries.active_page(request.user, cursor, filters=filters)
        else:  # every game that is over, also aborted and annulled ones
            page = queries.finished_page(request.user, cursor, filters=filters)
    except queries.BadCursor:
        raise BadRequest(
            "bad_cursor", _("Not a page of this list: follow the 'next' address given.")
        ) from None
    follow = None
    if page.next is not None:
        key = "after" if status == "active" else "before"
        kept = {
            name: value
            for name in ("opponent", "variant", "rated", "result")
            if (value := getattr(query, name))
        }
        follow = f"{request.path}?{urlencode({'status': status, **kept, key: page.next})}"
    games = [game_summary(g, request.user) for g in page.games]
    return JsonResponse({"games": games, "next": follow})


@router.get("/players/", response={200: PlayersFound, **refusals()}, url_name="api_players")
def players(request, query: Query[PlayersQuery]):
    """Players whose name starts with ``q`` (any case), by name, 20 at a time; ``next``
    is the address of the page after it (null on the last). Guests, suspended and closed
    accounts are not found."""
    found = search.players_named(query.q, query.after)
    rows = people.player_rows(request.user, found.players)
    follow = None
    if found.next is not None:
        follow = f"{request.path}?{urlencode({'q': query.q.strip(), 'after': found.next})}"
    keys = ("username", "bot", "rating", "games")
    return JsonResponse({"players": [{k: r[k] for k in keys} for r in rows], "next": follow})


@router.get("/games/{pk}/", response={200: GameView, **refusals(404)}, url_name="api_game")
def game(request, pk: str):
    """The game as the player sees it (or a watcher: ``watching``)."""
    return JsonResponse(game_now(access_game(request.user, pk)))


@router.post(
    "/games/{pk}/commands/",
    response={200: MoveAnswer, **refusals(404, 409, 429)},
    url_name="api_game_commands",
)
def game_commands(request, pk: str, body: MoveBody):
    """A move: one command, for the version it was chosen at, applied once per
    ``client_id`` (a retry answers what the first did)."""
    outcome = commands.do_command(
        pk,
        request.user,
        body.command.model_dump(),
        body.expected_version,
        body.client_id,
    )
    answer = game_now(outcome.seating)
    answer["applied"] = {"version": outcome.version, "duplicate": outcome.duplicate}
    return JsonResponse(answer)


@router.post(
    "/games/{pk}/extend/",
    response={200: GameView, **refusals(404, 409)},
    url_name="api_game_extend",
)
def game_extend(request, pk: str):
    """Give the player to move one more day, once a turn."""
    endings.do_extend(pk, request.user)
    return JsonResponse(game_now(access_game(request.user, pk)))


@router.post(
    "/games/{pk}/rematch/",
    response={201: Invitation, **refusals(404, 409, 429)},
    url_name="api_game_rematch",
    by_alias=True,
)
def game_rematch(request, pk: str, body: Seeds = NO_SEEDS):
    """Offer the other player a rematch of a game that is over."""
    invitation = invites.do_rematch(
        pk, request.user, client_seed=body.client_seed, commitment=body.commitment
    )
    return JsonResponse(invitation_json(invitation), status=201)


@router.get(
    "/games/{pk}/replay/",
    response={200: Replay, **refusals(404)},
    url_name="api_game_replay",
)
@decorate_view(gzip_page)
def game_replay(request, pk: str, as_: str | None = Query(None, alias="as")):
    """Every step of the game, from one side (``as``: a player's name)."""
    return JsonResponse(history.replay(access_game(request.user, pk), as_))


@router.get(
    "/games/{pk}/export/",
    response={200: Export, **refusals(404, 409)},
    url_name="api_game_export",
)
@decorate_view(gzip_page)
def game_export(request, pk: str):
    """The whole log of a game that is over, deck order included."""
    return JsonResponse(history.export(access_game(request.user, pk)))


@router.get("/games/{pk}/chat/", response={200: Chat, **refusals(404)}, url_name="api_game_chat")
def game_chat(request, pk: str):
    """The game's recent chat."""
    seating = access_game(request.user, pk)
    return JsonResponse({"chat": [chat_json(m, seating.me.pk) for m in recent_chat(seating.game)]})


@router.post("/games/{pk}/chat/", response={201: ChatLine, **refusals(404, 429)})
def game_chat_post(request, pk: str, body: ChatBody):
    """A line of chat to the other player."""
    seating = access_game(request.user, pk)
    message = chat.do_chat(pk, request.user, body.text)
    return JsonResponse(chat_json(message, seating.me.pk), status=201)


@router.get("/games/{pk}/note/", response={200: Note, **refusals(404)}, url_name="api_game_note")
def game_note(request, pk: str):
    """Your private note on a game (one of its players only): nobody else ever gets it."""
    seating = access_game(request.user, pk)
    if seating.watching:
        raise Forbidden("not_a_player", _("Only the two players of this game can do that."))
    return JsonResponse(note_json(queries.note_of(seating)))


@router.put("/games/{pk}/note/", response={200: Note, **refusals(404, 429)})
def game_note_put(request, pk: str, body: NoteBody):
    """Keep your private note on a game (empty text: delete it)."""
    return JsonResponse(note_json(notes.do_save_note(pk, request.user, body.text)))


# -- streams (games.live.streams) -----------------------------------------------------------


def _stream_language(request) -> str:
    return request.user.language or get_language()


@router.get(
    "/stream/",
    response={**refusals(429)},
    url_name="api_stream",
    openapi_extra=stream_response(AccountStreamLine),
)
def account_stream(request):
    """The account's events, one JSON object a line (``application/x-ndjson``): on
    opening its running games and the invitations addressed to it, then invitations,
    games starting, its turns and games ending as they happen; an empty line keeps the
    connection alive."""
    live = isinstance(request, ASGIRequest)
    place = streams.take_place(request.user.pk) if live else None
    stream = streams.AccountStream(
        request.user, request.token, place, _stream_language(request), live=live
    )
    return stream.response()


@router.get(
    "/games/{pk}/stream/",
    response={**refusals(404, 429)},
    url_name="api_game_stream",
    openapi_extra=stream_response(GameStreamLine),
)
def game_stream(request, pk: str, query: Query[GameStreamQuery]):
    """One game's frames as its socket sends them, from the viewer's side, one JSON
    object a line (``application/x-ndjson``): the state if newer than ``since``, then
    each newer version once and the chat; the stream ends after the state of a game
    that is over."""
    seating = access_game(request.user, pk)
    live = isinstance(request, ASGIRequest)
    place = streams.take_place(request.user.pk) if live else None
    stream = streams.GameStream(
        seating,
        query.since,
        request.user,
        request.token,
        place,
        _stream_language(request),
        live=live,
    )
    return stream.response()
