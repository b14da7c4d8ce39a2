from django import forms
from django.utils.translation import gettext_lazy as _

from .models import DAYS_PER_MOVE_CHOICES


class InvitationForm(forms.Form):
    to = forms.CharField(
        label=_("Invite"),
        required=False,
        max_length=150,
        help_text=_("A username; leave empty for an open invitation anyone may accept."),
    )
    extra_wild = forms.BooleanField(label=_("Extra wild card for each player"), required=False)
    days_per_move = forms.TypedChoiceField(
        label=_("Days per move"), choices=DAYS_PER_MOVE_CHOICES, coerce=int, initial=3
    )
    message = forms.CharField(label=_("Message"), required=False, max_length=300)
    rated = forms.BooleanField(
        label=_("Rated game"),
        required=False,
        initial=True,
        help_text=_("The result changes both players' ratings; untick for a casual game."),
    )
