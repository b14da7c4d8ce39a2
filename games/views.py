"""Server-rendered pages. Each one reads or calls one service function."""

from __future__ import annotations

import json
import uuid
from urllib.parse import urlencode

from allauth.account.adapter import get_adapter
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts import guest_accounts
from accounts.addresses import email_banner
from accounts.blocks import blocks
from accounts.follows import followed_among
from ratings.queries import current_ratings
from shanghaien.lib.errors import Forbidden, NotFound, RateLimited, ServiceError
from shanghaien.lib.input import is_username, parse_id, parse_json
from shanghaien.lib.responses import rate_limited_page

from . import analysis_shown, history, queries, showcase
from .access import access_game
from .forms import ComputerGameForm, GamesFilterForm, InvitationForm
from .live.reads import game_now
from .models import NOTE_MAX, Game
from .rules.random_player import GIVING_UP
from .serializers import fairness_json, game_summary
from .services import commands, commitments, invitations, notes, presence
from .words import card_label, describe_command, nation_name


def home(request):
    if not request.user.is_authenticated:
        context = {
            # a real position, drawn by the board's renderers (static/js/home.js)
            "board": showcase.board_json(),
            "shown": showcase.summary(),
        }
        return render(request, "games/home.html", context)
    if request.user.is_guest:
        return guest_home(request)
    games = [game_summary(g, request.user) for g in queries.games_for(request.user)]
    # the server's seed for the player's next game, fixed before their seed is sent
    commitment = commitments.shown(request.user).commitment
    invitations_shown = queries.invitations_for(request.user)
    # "invite" beside a player found or followed (games.people): the name filled in
    to = request.GET.get("to", "")
    context = {
        "games": games,
        # with nothing under way: a newcomer is welcomed, a player is sent to their past games
        "has_ended_games": not games and queries.has_ended_games(request.user),
        "invitations": invitations_shown,
        # the open invitations of players this one follows, marked in the list
        "friends_inviting": followed_among(
            request.user, {i.from_user_id for i in invitations_shown["open"]}
        ),
        "form": InvitationForm(
            initial={"commitment": commitment, "to": to if is_username(to) else ""}
        ),
        "computer_form": ComputerGameForm(initial={"commitment": commitment}),
        "commitment": commitment,
        "email_banner": email_banner(request.user),
    }
    response = render(request, "games/lobby.html", context)
    # the service worker keeps a copy of this page to show without a connection (sw.js)
    response["X-Offline-Copy"] = "lobby"
    return response


def guest_home(request):
    """A guest's lobby: their games, another game against the computer, and signing up."""
    user = request.user
    context = {
        "games": [game_summary(g, user) for g in queries.games_for(user)],
        "levels": ComputerGameForm.base_fields["level"].choices,
        "active_max": guest_accounts.GUEST_ACTIVE_GAMES_MAX,
    }
    return render(request, "games/guest_home.html", context)


@require_POST
def play_now(request):
    """The home page's "Play the computer now": a visitor becomes a guest
    (accounts.guest_accounts; made at most so often from one address) and a casual game
    against the computer opponent of the chosen level starts at once. A guest starts
    another game the same way; a player signed up has the lobby's panel."""
    user = request.user
    if user.is_authenticated and not user.is_guest:
        return redirect("home")
    levels = dict(ComputerGameForm.base_fields["level"].choices)
    level = request.POST.get("level") or "deckhand"
    if level not in levels:
        messages.error(request, _("Choose an opponent from the list."))
        return redirect("home")
    if not user.is_authenticated:
        address = get_adapter(request).get_client_ip(request)
        try:
            user = guest_accounts.do_make_guest(address, translation.get_language() or "")
        except RateLimited as error:
            return rate_limited_page(request, error, reverse("account_signup"))
        login(request, user)
    return game_against_computer(request, user, level, rated=False)


def game_against_computer(request, user, level: str, **terms):
    """Start ``user``'s game against the computer opponent of ``level`` and go to its
    board; a refusal goes back to the lobby, said in its words."""
    bot = queries.bot_of_level(level)
    try:
        invitation = invitations.do_invite(user, to=bot.username, **terms)
    except RateLimited as error:
        return rate_limited_page(request, error, reverse("home"))
    except ServiceError as error:
        messages.error(request, error.message)
        return redirect("home")
    return redirect("game", pk=invitation.game_id)


FILTERS = ("status", "opponent", "variant", "rated", "result")


@login_required
def my_games(request):
    """A page of the player's games, over (the default) or under way, narrowed by the
    filters of a GET form (``GamesFilterForm``), with a link to the next page that keeps
    them. A filter the form refuses is said and left out; a cursor this server did not
    write (a mangled link) shows the first page: nothing is changed by reading, and the
    newest games are what such a link most likely wanted."""
    form = GamesFilterForm(request.GET)
    form.is_valid()  # the fields it refuses are shown with their error, and left out
    chosen = {name: form.cleaned_data.get(name) or "" for name in FILTERS}
    status = chosen["status"] or "finished"
    key = "before" if status == "finished" else "after"
    cursor = request.GET.get(key)
    filters = queries.filters_of(
        chosen["opponent"], chosen["variant"], chosen["rated"], chosen["result"]
    )
    read = queries.finished_page if status == "finished" else queries.active_page
    if filters is None:  # no player of that name: no game
        cursor, page = None, queries.Page([], None)
    else:
        try:
            page = read(request.user, cursor, filters=filters)
        except queries.BadCursor:
            cursor, page = None, read(request.user, filters=filters)
    kept = {name: value for name, value in chosen.items() if value}
    context = {
        "form": form,
        "status": status,
        "filtered": any(kept.get(name) for name in FILTERS[1:]),
        "unknown_opponent": filters is None,
        "games": [game_summary(g, request.user) for g in page.games],
        "older": f"?{urlencode({**kept, key: page.next})}" if page.next else None,
        "newest": f"?{urlencode(kept)}" if cursor is not None else None,
    }
    return render(request, "games/finished.html", context)


@login_required
def live(request):
    """The games under way that anyone logged in may watch (``games.access``: every
    game; the listed ones, ``Game.listed``), the newest move first, a page at a time. A
    cursor this server did not write shows the first page."""
    after = request.GET.get("after")
    try:
        page = queries.live_page(after)
    except queries.BadCursor:
        after, page = None, queries.live_page()
    ratings = current_ratings(p.pk for g in page.games for p in g.players)
    rows = [
        {
            "game": g,
            "players": [{"user": p, "rating": ratings.get(p.pk)} for p in g.players],
            "mine": any(p.pk == request.user.pk for p in g.players),
        }
        for g in page.games
    ]
    context = {
        "rows": rows,
        "more": f"?{urlencode({'after': page.next})}" if page.next else None,
        "newest": after is not None,
    }
    return render(request, "games/live.html", context)


@login_required
@require_POST
def invite(request):
    form = InvitationForm(request.POST)
    if not form.is_valid():
        errors = form.errors.as_text()
        messages.error(request, _("The invitation was not sent: %(errors)s") % {"errors": errors})
        return redirect("home")
    try:
        invitations.do_invite(
            request.user,
            to=form.cleaned_data["to"] or None,
            **{
                k: form.cleaned_data[k]
                for k in (
                    "extra_wild",
                    "days_per_move",
                    "message",
                    "rated",
                    "client_seed",
                    "commitment",
                    "min_rating",
                    "max_rating",
                    "max_pace",
                )
            },
            bank=form.bank(),
        )
    except RateLimited as error:
        return rate_limited_page(request, error, reverse("home"))
    except ServiceError as error:
        messages.error(request, error.message)
    else:
        messages.success(request, _("Invitation sent."))
    return redirect("home")


@login_required
@require_POST
def play_computer(request):
    """Start a rated game against the computer opponent of the chosen level."""
    form = ComputerGameForm(request.POST)
    if not form.is_valid():
        messages.error(
            request, _("Choose an opponent: %(errors)s") % {"errors": form.errors.as_text()}
        )
        return redirect("home")
    return game_against_computer(
        request,
        request.user,
        form.cleaned_data["level"],
        extra_wild=form.cleaned_data["extra_wild"],
        client_seed=form.cleaned_data["client_seed"],
        commitment=form.cleaned_data["commitment"],
    )


@login_required
@require_POST
def answer_invitation(request, pk, answer):
    actions = {
        "accept": invitations.do_accept_invitation,
        "decline": invitations.do_decline_invitation,
        "cancel": invitations.do_cancel_invitation,
    }
    if answer not in actions:
        raise Http404("No such answer.")
    try:
        if answer == "accept":  # with the player's seed for the dice (docs/fairness.md)
            seed, commitment = (request.POST.get(k, "") for k in ("client_seed", "commitment"))
            result = actions[answer](pk, request.user, seed, commitment)
        else:
            result = actions[answer](pk, request.user)
    except ServiceError as error:
        messages.error(request, error.message)
        return redirect("home")
    if answer == "accept":
        return redirect("game", pk=result.pk)
    done = {"decline": _("Invitation declined."), "cancel": _("Invitation cancelled.")}
    messages.success(request, done[answer])
    return redirect("home")


@login_required
def game(request, pk):
    try:
        seating = access_game(request.user, pk)
    except NotFound:
        raise Http404("No such game.") from None
    data = game_now(seating)
    view = data["view"]
    dice = (view["roll"] or {}).get("dice")
    choices = [
        {"json": json.dumps(c), "label": describe_command(c, dice), "kind": c["type"]}
        for c in view["legal"]
    ]
    endings = [c for c in choices if c["kind"] in GIVING_UP]
    context = {
        "game": data,
        "view": view,
        # what the board says of the opponent (here, online, last seen), until the socket
        # tells otherwise; nothing for a watcher or against a computer
        "opponent_presence": None
        if seating.watching or seating.opponent.is_computer
        else presence.board_presence(pk, request.user, seating.opponent.pk),
        "blocked": not seating.watching and blocks(request.user, seating.opponent),
        # the player's private note (not a guest's: their games go a day after the last move)
        "note_box": not seating.watching and not request.user.is_guest,
        "note": None if request.user.is_guest else queries.note_of(seating),
        "note_max": NOTE_MAX,
        "next_after": seating.game.pk,  # the header's "next game" walks on from this one
        # a rematch from the player takes their next server seed: its commitment is shown
        # beside the button (also when the game ends while the page is open)
        "next_commitment": "" if seating.watching else commitments.shown(request.user).commitment,
        "without_play": ended_without_play(view),
        "choices": [c for c in choices if c["kind"] not in GIVING_UP],
        "endings": endings,
        "client_id": uuid.uuid4(),
        "rows": _board_rows(view),
        "nation_rows": [
            {**row, "name": nation_name(row["nation"])} for row in view["score_table"]["nations"]
        ],
        "last_round_cards": [
            {**c, "card_label": card_label(c["card"])}
            for c in (view["last_round"] or {}).get("cards", [])
        ],
    }
    return render(request, "games/game.html", context)


def ended_without_play(view: dict) -> bool:
    """A game over with no card won on either side, or nothing counted: only its
    sentence is shown, no table of zeros (the view's ``result.played``)."""
    result = view["result"]
    return bool(result) and not result["played"]


@login_required
def replay(request, pk):
    """Step through a game event by event; the steps come from the replay API."""
    try:
        seating = access_game(request.user, pk)
        found = seating.game
        data = history.replay(seating, request.GET.get("as"))
    except NotFound as error:
        raise Http404(error.message) from None
    except Forbidden as error:
        return render(request, "games/replay_refused.html", {"error": error}, status=403)
    over = found.status != Game.Status.ACTIVE
    query = "?" + urlencode({"as": data["players"]["me"]})
    levels = {player.username: player.program_mark or None for player in seating.players}
    context = {
        "replay": data,
        "over": over,
        "rounds": _timeline_by_round(data["steps"]),
        "config": {
            "id": found.pk,
            "players": data["players"],
            "status": found.status,
            "source": reverse("api_game_replay", args=[found.pk]) + query,
        },
        "other_side": data["players"]["opponent"] if over else None,
        "bots": {side: levels[name] for side, name in data["players"].items()},
        "analysis": analysis_shown.replay_analysis(found, _seat_of(data), seating.names),
        "verified_fair": history.verified_fair(seating),
        "fairness": fairness_json(found) if found.status != Game.Status.ACTIVE else None,
        "analysis_source": reverse("replay_analysis", args=[found.pk]) + query,
    }
    return render(request, "games/replay.html", context)


@login_required
def replay_analysis(request, pk):
    """The replay's analysis section alone, which the page fetches while it is prepared."""
    try:
        seating = access_game(request.user, pk)
        side = history.replay_side(seating, request.GET.get("as"))
    except NotFound as error:
        raise Http404(error.message) from None
    except Forbidden as error:
        return render(request, "games/replay_refused.html", {"error": error}, status=403)
    shown = analysis_shown.replay_analysis(seating.game, side, seating.names)
    if shown is None:  # a game under way: no analysis
        raise Http404()
    query = "?" + urlencode({"as": seating.names[side]})
    context = {
        "analysis": shown,
        "analysis_source": reverse("replay_analysis", args=[pk]) + query,
    }
    return render(request, "games/_analysis.html", context)


def _seat_of(replayed: dict) -> int:
    """The seat a replay is seen from."""
    return replayed["seats"].index(replayed["players"]["me"])


def _timeline_by_round(steps: list[dict]) -> list[dict]:
    """The steps that say something, grouped by round, numbered from 1 as on the page."""
    rounds = [{"round": 0, "lines": []}]
    for number, step in enumerate(steps, start=1):
        if step["kind"] == "round_started":
            rounds.append({"round": step["view"]["round"], "lines": []})
        if step["text"]:
            rounds[-1]["lines"].append({"step": number, "text": step["text"], "by": step["by"]})
    return [r for r in rounds if r["lines"]]


def _board_rows(view: dict) -> list[dict]:
    rows = []
    for slot in view["tavern"]:
        rows.append({**slot, "card_label": card_label(slot["card"])})
    return rows


@login_required
def next_game(request):
    """The header's "Next game": to the game waiting longest for the player's move, or,
    from a board (``after``: its game), to the one after it in that order; the lobby,
    saying so, when none waits. Always current: nothing is decided before the click."""
    after = parse_id(request.GET.get("after"))
    found = queries.next_waiting(request.user, after)
    if found is not None:
        return redirect("game", pk=found)
    if after:
        messages.info(request, _("No other game is waiting for your move."))
    else:
        messages.info(request, _("No game is waiting for your move."))
    return redirect("home")


@login_required
@require_POST
def save_note(request, pk):
    """The note form of the board without JavaScript (board pages save through the API)."""
    try:
        saved = notes.do_save_note(pk, request.user, request.POST.get("text", ""))
    except NotFound:
        raise Http404("No such game.") from None
    except RateLimited as error:
        return rate_limited_page(request, error, reverse("game", args=[pk]))
    except ServiceError as error:
        messages.error(request, error.message)
    else:
        messages.success(request, _("Note saved.") if saved else _("Note deleted."))
    return redirect(reverse("game", args=[pk]) + "#note")


@login_required
@require_POST
def play(request, pk):
    """The form fallback of the board: one legal command, posted as JSON text."""
    try:
        command = parse_json(request.POST.get("command", ""))
        expected = int(request.POST.get("expected_version", ""))
    except (ServiceError, ValueError):
        messages.error(request, _("That move could not be read; please try again."))
        return redirect("game", pk=pk)
    try:
        commands.do_command(pk, request.user, command, expected, request.POST.get("client_id"))
    except NotFound:
        raise Http404("No such game.") from None
    except ServiceError as error:
        messages.error(request, error.message)
    return redirect("game", pk=pk)
