"""The form that makes a tournament: every term of the issue's options, checked here
for what a form can say, then by the service (``services.entries.check_tournament``),
whose refusal the view shows on the form."""

from __future__ import annotations

from datetime import timedelta

from django import forms
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games.forms import ClockForm

from .models import Tournament


class TournamentForm(ClockForm):
    """The clock's fields (days per move or a time bank) are the invitation form's."""

    # the clock after the terms of the games, before who may play
    field_order = ("name", "description", "format", "extra_wild", "rated", *ClockForm.clock_fields)

    name = forms.CharField(label=_("Name"), max_length=80)
    description = forms.CharField(
        label=_("Description"),
        required=False,
        max_length=500,
        widget=forms.Textarea(attrs={"rows": 3}),
    )
    format = forms.ChoiceField(
        label=_("Format"),
        choices=Tournament.Format.choices,
        initial=Tournament.Format.GROUPS_KNOCKOUT,
        help_text=_(
            "Every pairing is a match of two games, each player starting one; a level "
            "knock-out match gets a third game."
        ),
    )
    extra_wild = forms.BooleanField(label=_("Extra wild card for each player"), required=False)
    rated = forms.BooleanField(label=_("Rated games"), required=False, initial=True)
    min_rating = forms.IntegerField(
        label=_("Lowest rating"), min_value=0, max_value=4000, required=False
    )
    max_rating = forms.IntegerField(
        label=_("Highest rating"), min_value=0, max_value=4000, required=False
    )
    min_players = forms.IntegerField(
        label=_("Fewest players"), min_value=2, max_value=256, initial=4
    )
    max_players = forms.IntegerField(
        label=_("Most players"), min_value=2, max_value=256, initial=16
    )
    group_size = forms.IntegerField(
        label=_("Players per group"),
        min_value=2,
        max_value=16,
        initial=4,
        help_text=_("Groups, then knock-out: groups of at most this many."),
    )
    advance = forms.IntegerField(
        label=_("Going on from each group"),
        min_value=1,
        max_value=8,
        initial=2,
        help_text=_("Groups, then knock-out: how many of each group reach the knock-out."),
    )
    signup_deadline = forms.DateTimeField(
        label=_("Sign-up closes"),
        help_text=_("In your time zone. The tournament starts then, if enough players signed up."),
        input_formats=["%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M", "%Y-%m-%dT%H:%M:%S"],
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M"),
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if not self.is_bound:
            soon = timezone.localtime() + timedelta(days=7)
            self.initial["signup_deadline"] = soon.replace(minute=0, second=0, microsecond=0)

    def clean(self):
        data = super().clean()  # the clock's (``ClockForm``)
        low, high = data.get("min_rating"), data.get("max_rating")
        if low is not None and high is not None and low > high:
            self.add_error("max_rating", _("The highest rating is below the lowest."))
        fewest, most = data.get("min_players"), data.get("max_players")
        if fewest is not None and most is not None and fewest > most:
            self.add_error("max_players", _("Fewer than the fewest players."))
        deadline = data.get("signup_deadline")
        if deadline is not None and deadline <= timezone.now():
            self.add_error("signup_deadline", _("The sign-up must close in the future."))
        return data

    def terms(self) -> dict:
        """The service's keyword arguments (``services.entries.do_create``)."""
        data = self.cleaned_data
        return {
            "name": data["name"],
            "format": data["format"],
            "signup_deadline": data["signup_deadline"],
            "description": data["description"],
            "extra_wild": data["extra_wild"],
            "rated": data["rated"],
            "days_per_move": data["days_per_move"],
            "bank": self.bank(),
            "min_rating": data["min_rating"],
            "max_rating": data["max_rating"],
            "min_players": data["min_players"],
            "max_players": data["max_players"],
            "group_size": data["group_size"],
            "advance": data["advance"],
        }
