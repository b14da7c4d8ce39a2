"""A player's settings, on a page of their own: notifications, language and time zone,
devices, holidays, the account's address and password, API tokens.

It lives in games, not in accounts, for the reason the profile does: it shows the
notification choices, which belong to ``games.notify``, beside what accounts keeps
(holidays, devices, tokens), and games may use accounts but not the other way round
(docs/architecture.md). Each form posts to the view of the app that owns it, which
comes back here.
"""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.shortcuts import render
from django.views.decorators.cache import never_cache

from accounts.addresses import email_banner
from accounts.devices import device_name
from accounts.forms import HolidayForm, TokenForm

from .notify.preferences import PreferencesForm
from .notify.send import email_undeliverable


@never_cache
@login_required
def settings_page(request):
    person = request.user
    context = {
        "person": person,
        "preferences": PreferencesForm(instance=person),
        "email_banner": email_banner(person),
        "email_undeliverable": email_undeliverable(person),
        "tokens": person.api_tokens.all(),
        "token_form": TokenForm(),
        "holidays": person.holidays.all(),
        "holiday_form": HolidayForm(),
        "devices": [
            {
                "id": d.pk,
                "name": device_name(d.user_agent),
                "created_at": d.created_at,
                "last_success_at": d.last_success_at,
            }
            for d in person.push_subscriptions.all()
        ],
    }
    return render(request, "accounts/settings.html", context)
