"""Finding players and following them: the search's results (``/players/``) and the
friends page (``/friends/``). The names are found by ``accounts.name_search`` and the follows
kept by ``accounts.follows``; this module adds what the games and ratings know of each
player (rating, games played) and the games waiting for the player against a friend.
"""

from __future__ import annotations

from urllib.parse import urlencode

from django.contrib.auth.decorators import login_required
from django.shortcuts import render
from django.urls import reverse

from accounts import follows
from accounts import name_search as search
from accounts.online import presence_of
from ratings.models import PlayerRating
from shanghaien.lib.errors import BadRequest

from .forms import InvitationForm
from .models import DAYS_PER_MOVE_CHOICES, Game, PlayerRecord, Seat


def player_rows(viewer, players: list) -> list[dict]:
    """One row per player: name, computer's level, rating, finished games played, and
    presence as ``viewer`` may see it (``accounts.online``); in two queries and one cache
    round trip whatever the number of players."""
    ids = [p.pk for p in players]
    presence = presence_of(viewer, players)
    ratings = {
        r["user_id"]: r
        for r in PlayerRating.objects.filter(user_id__in=ids, games__gte=1).values(
            "user_id", "rating", "deviation"
        )
    }
    played = dict(PlayerRecord.objects.filter(user_id__in=ids).values_list("user_id", "played"))
    rows = []
    for player in players:
        rating = ratings.get(player.pk)
        rows.append(
            {
                "username": player.username,
                "bot": player.program_mark or None,
                "rating": round(rating["rating"]) if rating else None,
                "games": played.get(player.pk, 0),
                "pk": player.pk,
                "presence": presence[player.pk],
            }
        )
    return rows


def invite_terms() -> dict:
    """The terms of a one-step invitation: the lobby form's own defaults."""
    fields = InvitationForm.base_fields
    days = fields["days_per_move"].initial
    return {
        "days_per_move": days,
        "days_label": dict(DAYS_PER_MOVE_CHOICES)[days],
        "rated": bool(fields["rated"].initial),
        "extra_wild": bool(fields["extra_wild"].initial),
    }


@login_required
def players(request):
    """The header's search: players whose name starts with ``q``, a page at a time."""
    q = request.GET.get("q", "")
    context = {"q": q if isinstance(q, str) else ""}
    status = 200
    if not q.strip():
        context["empty"] = True  # the page itself, before a search
    else:
        try:
            found = search.players_named(q, request.GET.get("after"))
        except BadRequest as error:
            context["problem"] = error.message
            status = 400
        else:
            context["rows"] = player_rows(request.user, found.players)
            if found.next:
                query = urlencode({"q": q.strip(), "after": found.next})
                context["more"] = f"{reverse('players')}?{query}"
            context["first_page"] = "after" not in request.GET
    return render(request, "games/players.html", context, status=status)


def waiting_against(user, ids) -> dict[int, list[int]]:
    """The games under way where it is ``user``'s turn, by the opponent among ``ids``:
    from the games waiting for the player (the index on status and to_move)."""
    waiting = {}
    if not ids:
        return waiting
    seats = (
        Seat.objects.filter(
            game__status=Game.Status.ACTIVE, game__to_move=user, user_id__in=list(ids)
        )
        .order_by("game__last_move_at", "game_id")
        .values_list("user_id", "game_id")
    )
    for opponent, game in seats:
        waiting.setdefault(opponent, []).append(game)
    return waiting


@login_required
def friends(request):
    """The players this player follows: who is online, the games waiting for the player
    against each, and an invitation in one step."""
    followed = follows.followed_by(request.user)
    rows = player_rows(request.user, followed)
    waiting = waiting_against(request.user, [p.pk for p in followed])
    for row in rows:
        row["waiting"] = waiting.get(row["pk"], [])
    rows.sort(key=lambda row: not row["presence"].online)  # online first, then by name
    context = {
        "rows": rows,
        "friends_waiting": sum(len(games) for games in waiting.values()),
        "terms": invite_terms(),
    }
    return render(request, "games/friends.html", context)
