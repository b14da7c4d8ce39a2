from django import forms
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext_lazy, pgettext_lazy

from .models import DAYS_PER_MOVE_CHOICES
from .services import fitting, invitations


def _days(hours: int) -> str:
    days = hours // 24
    if hours % 24:
        return ngettext_lazy("%(n)s hour", "%(n)s hours", "n") % {"n": hours}
    return ngettext_lazy("%(n)s day", "%(n)s days", "n") % {"n": days}


def _hour_choices(hours) -> list:
    return [(h, _days(h)) for h in hours]


# A bank holds at most: a few days, up to the longest a bank may hold (30 days).
BANK_CAP_HOURS = (24, 48, 72, 120, 168, 240, 336, 504, invitations.BANK_CAP_LONGEST)


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


class ClockForm(forms.Form):
    """A game's clock, chosen on a form: days per move, or a time bank's three terms
    (the ``bank_*`` fields, shown only when "Time bank" is chosen: static/css/site.css).
    The invitation form's and the tournament form's; ``bank()`` gives the terms for
    ``games.services.invitations.check_bank``, which checks them again."""

    clock_fields = ("clock", "days_per_move", "bank_start", "bank_increment", "bank_cap")

    clock = forms.ChoiceField(
        label=_("Clock"),
        choices=[("days", _("Days per move")), ("bank", _("Time bank"))],
        initial="days",
        required=False,  # left out: days per move
        widget=forms.RadioSelect,
        help_text=_(
            "A time bank: each player starts with a bank of time, spent while it is their "
            "turn (holidays stop it); each move adds some, up to the most it holds."
        ),
    )
    days_per_move = forms.TypedChoiceField(
        label=_("Days per move"), choices=DAYS_PER_MOVE_CHOICES, coerce=int, initial=3
    )
    bank_start = forms.TypedChoiceField(
        label=_("Time bank: to start"),
        choices=_hour_choices(invitations.BANK_START_HOURS),
        coerce=int,
        initial=72,
        required=False,
        empty_value=None,
    )
    bank_increment = forms.TypedChoiceField(
        label=_("Time bank: added each move"),
        choices=_hour_choices(invitations.BANK_INCREMENT_HOURS),
        coerce=int,
        initial=24,
        required=False,
        empty_value=None,
    )
    bank_cap = forms.TypedChoiceField(
        label=_("Time bank: at most"),
        choices=_hour_choices(BANK_CAP_HOURS),
        coerce=int,
        initial=168,
        required=False,
        empty_value=None,
    )

    def clean(self):
        data = super().clean()
        if data.get("clock") != "bank":
            return data
        names = ("bank_start", "bank_increment", "bank_cap")
        missing = [name for name in names if data.get(name) is None]
        if missing:
            for name in missing:
                if name not in self.errors:
                    self.add_error(name, _("Choose the time bank's terms."))
        elif data["bank_cap"] < data["bank_start"]:
            self.add_error(
                "bank_cap", _("A time bank holds at least what it starts with: choose more.")
            )
        return data

    def bank(self) -> dict | None:
        """The time bank's terms chosen (a valid form), or None: days per move."""
        data = self.cleaned_data
        if data.get("clock") != "bank":
            return None
        return {
            "start_hours": data["bank_start"],
            "increment_hours": data["bank_increment"],
            "cap_hours": data["bank_cap"],
        }


class InvitationForm(ClockForm, LobbyForm):
    # the clock's fields after the seed, as the lobby has always shown them
    field_order = ("to", "extra_wild", "client_seed", *ClockForm.clock_fields)

    to = forms.CharField(
        label=_("Invite"),
        required=False,
        max_length=150,
        help_text=_("A username; leave empty for an open invitation anyone may accept."),
    )
    extra_wild = forms.BooleanField(label=_("Extra wild card for each player"), required=False)
    client_seed = client_seed_field()
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
            ("captain", _("Captain: plays the round out in its head many times, a strong player")),
            (
                "admiral",
                _("Admiral: plays every sensible move out hundreds of times, the strongest"),
            ),
        ],
        initial="deckhand",
        widget=forms.RadioSelect,
    )
    extra_wild = forms.BooleanField(label=_("Extra wild card for each player"), required=False)
    client_seed = client_seed_field()
    commitment = commitment_field()


ANY = ("", _("any"))


class GamesFilterForm(forms.Form):
    """The filters of a player's list of games (``games.queries.filters_of``), sent by
    GET: each left empty takes every game."""

    status = forms.ChoiceField(
        label=_("Games"),
        required=False,
        choices=[("finished", _("over")), ("active", _("under way"))],
    )
    opponent = forms.CharField(label=_("Opponent"), required=False, max_length=150)
    variant = forms.ChoiceField(
        label=_("Variant"),
        required=False,
        choices=[ANY, ("standard", _("standard")), ("extra_wild", _("extra wild card"))],
    )
    rated = forms.ChoiceField(
        label=_("Rated or casual"),
        required=False,
        choices=[
            ANY,
            ("rated", pgettext_lazy("game", "rated")),
            ("casual", pgettext_lazy("game", "casual")),
        ],
    )
    result = forms.ChoiceField(
        label=_("Result"),
        required=False,
        choices=[ANY, ("won", _("won")), ("lost", _("lost")), ("drawn", _("drawn"))],
    )
