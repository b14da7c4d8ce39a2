"""The games' JSON API: thin views over the services (plumbing: ``accounts.api``)."""

from __future__ import annotations

from urllib.parse import urlencode

from django.http import JsonResponse
from django.utils.translation import gettext as _
from django.views.decorators.gzip import gzip_page

from accounts.api import field, json_api, only_fields
from shanghaien.lib.errors import BadRequest

from . import history, queries
from .access import access_game
from .live.reads import game_now
from .rules import fairness
from .serializers import chat_json, game_summary, invitation_json, recent_chat
from .services import chat, commands, commitments, endings
from .services import invitations as invites


@json_api("GET", "POST")
def invitations(request):
    if request.method == "POST":
        data = request.data
        allowed = {"to", "extra_wild", "days_per_move", "message", "rated"}
        only_fields(data, allowed | {"client_seed", "commitment"})
        invitation = invites.do_invite(
            request.user,
            to=field(data, "to"),
            extra_wild=field(data, "extra_wild", False),
            days_per_move=field(data, "days_per_move", 3),
            message=field(data, "message", ""),
            rated=field(data, "rated", True),
            client_seed=field(data, "client_seed", ""),
            commitment=field(data, "commitment"),
        )
        return JsonResponse(invitation_json(invitation), status=201)
    lists = queries.invitations_for(request.user)
    body = {k: [invitation_json(i) for i in v] for k, v in lists.items()}
    return JsonResponse({**body, "commitment": commitments.shown(request.user).commitment})


@json_api("GET")
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


def _seeds(data) -> dict:
    """The player's seed and the commitment it answers, from a body that has no others."""
    only_fields(data, {"client_seed", "commitment"})
    return {"client_seed": field(data, "client_seed", ""), "commitment": field(data, "commitment")}


@json_api("POST")
def invitation_accept(request, pk):
    game = invites.do_accept_invitation(pk, request.user, **_seeds(request.data))
    return JsonResponse({"game": game.pk}, status=201)


@json_api("POST")
def invitation_decline(request, pk):
    return JsonResponse(invitation_json(invites.do_decline_invitation(pk, request.user)))


@json_api("POST")
def invitation_cancel(request, pk):
    return JsonResponse(invitation_json(invites.do_cancel_invitation(pk, request.user)))


@json_api("GET")
def games(request):
    """A page of the player's games, and in ``next`` the address of the page after it
    (null on the last page)."""
    status = request.GET.get("status", "active")
    cursor = request.GET.get("after" if status == "active" else "before")
    try:
        if status == "active":
            page = queries.active_page(request.user, cursor)
        elif status == "finished":  # every game that is over, also aborted and annulled ones
            page = queries.finished_page(request.user, cursor)
        else:
            raise BadRequest("bad_status", _("The status is 'active' or 'finished'."))
    except queries.BadCursor:
        raise BadRequest(
            "bad_cursor", _("Not a page of this list: follow the 'next' address given.")
        ) from None
    follow = None
    if page.next is not None:
        key = "after" if status == "active" else "before"
        follow = f"{request.path}?{urlencode({'status': status, key: page.next})}"
    games = [game_summary(g, request.user) for g in page.games]
    return JsonResponse({"games": games, "next": follow})


@json_api("GET")
def game(request, pk):
    return JsonResponse(game_now(access_game(request.user, pk)))


@json_api("POST")
def game_commands(request, pk):
    data = request.data
    outcome = commands.do_command(
        pk,
        request.user,
        field(data, "command", required=True),
        field(data, "expected_version", required=True),
        field(data, "client_id", required=True),
    )
    body = game_now(outcome.seating)
    body["applied"] = {"version": outcome.version, "duplicate": outcome.duplicate}
    return JsonResponse(body)


@json_api("POST")
def game_extend(request, pk):
    endings.do_extend(pk, request.user)
    return JsonResponse(game_now(access_game(request.user, pk)))


@json_api("POST")
def game_rematch(request, pk):
    invitation = invites.do_rematch(pk, request.user, **_seeds(request.data))
    return JsonResponse(invitation_json(invitation), status=201)


@gzip_page
@json_api("GET")
def game_replay(request, pk):
    return JsonResponse(history.replay(access_game(request.user, pk), request.GET.get("as")))


@gzip_page
@json_api("GET")
def game_export(request, pk):
    return JsonResponse(history.export(access_game(request.user, pk)))


@json_api("GET", "POST")
def game_chat(request, pk):
    seating = access_game(request.user, pk)
    if request.method == "POST":
        message = chat.do_chat(pk, request.user, field(request.data, "text"))
        return JsonResponse(chat_json(message, seating.me.pk), status=201)
    return JsonResponse({"chat": [chat_json(m, seating.me.pk) for m in recent_chat(seating.game)]})
