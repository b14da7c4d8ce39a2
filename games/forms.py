from django import forms
from django.utils.translation import gettext_lazy as _

from .models import DAYS_PER_MOVE_CHOICES
from .services import fitting


def client_seed_field():
    """The player's seed for the dice (docs/fairness.md): typed, or the browser's random
    one (static/js/seeds.js fills an empty field when the form is sent)."""
    return forms.CharField(
        label=_("Your seed for the dice"),
        required=False,
        strip=False,
        max_length=64,
        help_text=_(
            "Optional: any text of up to 64 characters, mixed into the shuffle and the dice. "
            "Left empty, your browser picks a random one."
        ),
        widget=forms.TextInput(attrs={"data-client-seed": "", "autocomplete": "off"}),
    )


def commitment_field():
    """The server's commitment the player was shown with the form: their seed answers it
    (games/services/commitments.py); filled in by the view."""
    return forms.CharField(required=False, max_length=64, widget=forms.HiddenInput)


class LobbyForm(forms.Form):
    """A form of the lobby (templates/games/_lobby_form.html): the ``advanced`` fields
    (the seed for the dice) folded away in a ``<details>`` with a line saying what they
    are for."""

    advanced = ("client_seed",)
    id_prefix = "id"

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("auto_id", self.id_prefix + "_%s")  # unique ids on one page
        super().__init__(*args, **kwargs)


class InvitationForm(LobbyForm):
    to = forms.CharField(
        label=_("Invite"),
        required=False,
        max_length=150,
        help_text=_("A username; leave empty for an open invitation anyone may accept."),
    )
    extra_wild = forms.BooleanField(label=_("Extra wild card for each player"), required=False)
    client_seed = client_seed_field()
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
    # Who may accept an open invitation (games.services.fitting, which checks them again)
    min_rating = forms.IntegerField(
        label=_("Lowest rating"),
        required=False,
        min_value=fitting.RATING_LOWEST,
        max_value=fitting.RATING_HIGHEST,
        help_text=_(
            "Open invitations only; empty: no limit. A player without a rated game counts as 1500."
        ),
    )
    max_rating = forms.IntegerField(
        label=_("Highest rating"),
        required=False,
        min_value=fitting.RATING_LOWEST,
        max_value=fitting.RATING_HIGHEST,
        help_text=_("Open invitations only; empty: no limit."),
    )
    max_pace = forms.IntegerField(
        label=_("Slowest pace (days per move)"),
        required=False,
        min_value=1,
        max_value=fitting.PACE_LONGEST,
        help_text=_(
            "Open invitations only: the most days a player may take per move, on average "
            "over their last 20 finished games. A player with no finished game yet may accept."
        ),
    )
    commitment = commitment_field()


class ComputerGameForm(LobbyForm):
    """A game against a computer opponent: rated, started at once."""

    id_prefix = "computer"

    level = forms.ChoiceField(
        label=_("Opponent"),
        choices=[
            ("deckhand", _("Deckhand: plays sensibly, makes a beginner's mistakes")),
            ("boatswain", _("Boatswain: judges every move by its position, a good player")),
            ("captain", _("Captain: plays the round out in its head many times, the strongest")),
        ],
        initial="deckhand",
        widget=forms.RadioSelect,
    )
    extra_wild = forms.BooleanField(label=_("Extra wild card for each player"), required=False)
    client_seed = client_seed_field()
    commitment = commitment_field()
