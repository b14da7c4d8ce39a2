"""A player's page: their record, games and rating (their settings: ``settings_page``)."""

from __future__ import annotations

from django.shortcuts import get_object_or_404, render

from accounts.addresses import email_banner
from accounts.blocks import blocks
from accounts.follows import follows
from accounts.models import User
from accounts.online import presence_of
from ratings.queries import profile_rating

from .notify.send import email_undeliverable
from .queries import games_for, record_of, records_of
from .serializers import game_summary


def profile(request, username):
    person = get_object_or_404(User, username__iexact=username, is_active=True)
    own = request.user.is_authenticated and request.user.pk == person.pk
    context = {
        "person": person,
        "presence": presence_of(request.user, [person])[person.pk],
        "own": own,
        "record": record_of(person),
        **records_of(person),
        "games": [game_summary(g, person) for g in games_for(person)[:50]],
        "ratings": profile_rating(person),
    }
    if request.user.is_authenticated and not own:
        context["blocked"] = blocks(request.user, person)
        context["following"] = follows(request.user, person)
    if own:
        context["email_banner"] = email_banner(person)
        context["email_undeliverable"] = email_undeliverable(person)
    return render(request, "accounts/profile.html", context)
