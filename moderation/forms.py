"""The moderators' console's form: how a report is handled, and why."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from .models import REASON_MAX
from .services import HIDE, SUSPEND, UNFOUNDED, WARN

FOR_GOOD = "forever"
DAYS = (1, 7, 30)  # the periods of a suspension the console offers (the admin's: any)


def periods() -> list[tuple[str, str]]:
    """The choices of the suspension's period, in the page's language."""
    days = [(str(n), ngettext("%(n)d day", "%(n)d days", n) % {"n": n}) for n in DAYS]
    return [*days, (FOR_GOOD, gettext("for good"))]


class HandleReportForm(forms.Form):
    handling = forms.ChoiceField(
        choices=[
            (HIDE, _("Hide the message")),
            (WARN, _("Warn the player")),
            (SUSPEND, _("Suspend the player")),
            (UNFOUNDED, _("Close as unfounded")),
        ]
    )
    reason = forms.CharField(
        label=_("Reason"), max_length=REASON_MAX, widget=forms.Textarea(attrs={"rows": 2})
    )
    days = forms.ChoiceField(label=_("Suspend for"), choices=periods, required=False)

    def clean(self):
        data = super().clean()
        if data.get("handling") == SUSPEND and not data.get("days"):
            self.add_error("days", _("Choose how long the suspension lasts."))
        return data

    @property
    def suspension_days(self) -> int | None:
        """The chosen period in days; None for good."""
        days = self.cleaned_data.get("days") or FOR_GOOD
        return None if days == FOR_GOOD else int(days)
