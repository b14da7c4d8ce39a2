"""The tournament pages: the list, the form that makes one, a tournament's page (its
terms, entrants, groups, crosstables, standings, bracket and places), the buttons to
sign up, leave, withdraw, start early or cancel, and the rules. Thin: the reads are
``queries``', the writes the services'. Every page works without JavaScript; with it,
a tournament's page reloads itself when the tournament changes (``live``)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_POST

from shanghaien.lib.errors import RateLimited, ServiceError
from shanghaien.lib.input import parse_id
from shanghaien.lib.responses import rate_limited_page

from . import queries
from .forms import TournamentForm
from .models import Tournament
from .services import entries, stages


def tournaments(request):
    """Open and running tournaments (a page of each, featured first, then by
    deadline), and the player's own."""
    after = (
        queries.decode_cursor(request.GET.get("after", "")) if request.GET.get("after") else None
    )
    which = request.GET.get("which")
    shown = {}
    for status in queries.LISTED:
        rows, more = queries.listing(status, after if which == status else None)
        shown[status] = {
            "rows": rows,
            "next": queries.encode_cursor(rows[-1]) if more and rows else None,
        }
    context = {
        "open": shown[Tournament.Status.SIGNUP],
        "running": shown[Tournament.Status.RUNNING],
        "mine": queries.mine(request.user),
        "can_create": request.user.is_authenticated and not request.user.is_guest,
    }
    return render(request, "tournaments/list.html", context)


@login_required
def new(request):
    if request.user.is_guest:
        messages.error(request, _("Sign up to make a tournament."))
        return redirect("tournaments")
    form = TournamentForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            tournament = entries.do_create(request.user, **form.terms())
        except RateLimited as error:
            return rate_limited_page(request, error, back=request.path)
        except ServiceError as error:
            form.add_error(None, error.message)
        else:
            messages.success(request, _("Your tournament is open for sign-up."))
            return redirect("tournament", pk=tournament.pk)
    status = 400 if request.method == "POST" else 200
    return render(request, "tournaments/new.html", {"form": form}, status=status)


def tournament(request, pk):
    view = queries.tournament_view(parse_id(pk) or 0, request.user)
    if view is None:
        raise Http404("No such tournament.")
    t = view.tournament
    context = {
        "view": view,
        "t": t,
        "is_creator": request.user.is_authenticated and t.created_by_id == request.user.pk,
        "playing": [e for e in view.entries if e.status == e.Status.PLAYING],
        "open": t.status == Tournament.Status.SIGNUP,
        "running": t.status == Tournament.Status.RUNNING,
        "over": t.status in (Tournament.Status.FINISHED, Tournament.Status.CANCELLED),
    }
    return render(request, "tournaments/tournament.html", context)


ACTIONS = {
    "join": (entries.do_join, gettext_lazy("You are signed up.")),
    "leave": (entries.do_leave, gettext_lazy("You are no longer signed up.")),
    "withdraw": (
        entries.do_withdraw,
        gettext_lazy("You withdrew: your remaining games are forfeited."),
    ),
    "start": (
        lambda pk, user: stages.do_start(pk, user=user),
        gettext_lazy("The tournament has started."),
    ),
    "cancel": (entries.do_cancel, gettext_lazy("The tournament is cancelled.")),
}


@login_required
@require_POST
def act(request, pk, action):
    """Sign up, leave, withdraw, start early or cancel: a form's button."""
    pk = parse_id(pk)
    if action not in ACTIONS or pk is None:
        raise Http404("No such action.")
    do, done = ACTIONS[action]
    try:
        do(pk, request.user)
    except RateLimited as error:
        return rate_limited_page(request, error, back=f"/tournaments/{pk}/")
    except ServiceError as error:
        if error.status == 404:
            raise Http404("No such tournament.") from None
        messages.error(request, error.message)
    else:
        messages.success(request, str(done))
    return redirect("tournament", pk=pk)


def rules(request):
    return render(request, "tournaments/rules.html")
