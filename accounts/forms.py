import contextlib
import datetime as dt
import functools
import zoneinfo
from importlib import resources
from pathlib import Path

from allauth.account.forms import LoginForm as AllauthLoginForm
from allauth.account.forms import SignupForm as AllauthSignupForm
from django import forms
from django.core.exceptions import ValidationError
from django.utils import timezone, translation
from django.utils.translation import gettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from shanghaien.lib.local_time import local_moment
from shanghaien.lib.ratelimit import try_again_in

from .models import SUSPENDED_FOR_GOOD, User, time_zones, validate_time_zone
from .throttle import wait_for


class LoginForm(AllauthLoginForm):
    """allauth's log in (username or email). A suspended player who gives their right
    password is told why they cannot come in, rather than "wrong password" (allauth's
    backend hands such a user over for a page of its own); a wrong password says no
    more than before. Too many failures say when to try again."""

    retry_after = 0  # seconds, when the attempt was refused for too many failures

    def clean(self):
        try:
            cleaned_data = super().clean()
        except ValidationError as error:
            if getattr(error, "code", None) == "too_many_login_attempts":
                raise self._throttled() from error
            raise
        if self.user is not None and getattr(self.user, "is_suspended", False):
            raise ValidationError(suspension_message(self.user), code="suspended")
        return cleaned_data

    def _throttled(self) -> ValidationError:
        key = (self.data.get("login") or "").strip().lower()  # the account tried
        self.retry_after = wait_for(self.request, "login_failed", key=key)
        message = gettext("Too many failed attempts to log in. %(try_again)s") % {
            "try_again": try_again_in(self.retry_after)
        }
        return ValidationError(message, code="too_many_login_attempts")


def suspension_message(user: User) -> str:
    reason = user.suspension_reason or gettext("no reason was recorded")
    if user.suspended_until >= SUSPENDED_FOR_GOOD:
        return gettext("Your account is suspended for good: %(reason)s") % {"reason": reason}
    with timezone.override(user.zone):
        until = local_moment(user.suspended_until)
    return gettext("Your account is suspended until %(date)s: %(reason)s") % {
        "date": until,
        "reason": reason,
    }


# -- the time-zone picker ------------------------------------------------------------------
# The IANA regions a place's zone is named in; the other names (Etc/GMT+1, Factory, US/…,
# GMT+0, CET …) are for machines and old configurations, not for a player to choose from.
REGIONS = {
    "Africa": pgettext_lazy("time zone region", "Africa"),
    "America": pgettext_lazy("time zone region", "America"),
    "Antarctica": pgettext_lazy("time zone region", "Antarctica"),
    "Arctic": pgettext_lazy("time zone region", "Arctic"),
    "Asia": pgettext_lazy("time zone region", "Asia"),
    "Atlantic": pgettext_lazy("time zone region", "Atlantic"),
    "Australia": pgettext_lazy("time zone region", "Australia"),
    "Europe": pgettext_lazy("time zone region", "Europe"),
    "Indian": pgettext_lazy("time zone region", "Indian Ocean"),
    "Pacific": pgettext_lazy("time zone region", "Pacific"),
}
# Offered first, after the player's own: where most players of the site live.
COMMON_ZONES = (
    "Europe/Berlin",
    "Europe/Vienna",
    "Europe/Zurich",
    "Europe/Paris",
    "Europe/Rome",
    "Europe/London",
    "America/New_York",
    "America/Los_Angeles",
    "UTC",
)


def _zone_table() -> str:
    """The text of ``zone.tab``: the zones of places, one or more a country
    (the system's tz database, else the tzdata package's); "" where neither has one."""
    for folder in zoneinfo.TZPATH:
        with contextlib.suppress(OSError):
            return (Path(folder) / "zone.tab").read_text(encoding="utf-8")
    with contextlib.suppress(ModuleNotFoundError, OSError):
        return resources.files("tzdata.zoneinfo").joinpath("zone.tab").read_text("utf-8")
    return ""


@functools.cache
def place_zones() -> frozenset[str]:
    """The zones a player may be offered: those ``zone.tab`` names for a place (no
    ``Etc/…``, no ``Factory``, no old alias such as ``US/Eastern`` or
    ``America/Buenos_Aires``), in one of the ``REGIONS``, known to this machine. Without
    a ``zone.tab``, every known zone of those regions."""
    known = time_zones()
    listed = {
        line.split("\t")[2]
        for line in _zone_table().splitlines()
        if line and not line.startswith("#") and line.count("\t") >= 2
    }
    names = (listed & known) or known
    return frozenset(name for name in names if name.split("/", 1)[0] in REGIONS)


def utc_offset(name: str, now=None) -> str:
    """The zone's offset from UTC now, as "UTC+01:00"."""
    now = now or timezone.now()
    offset = now.astimezone(zoneinfo.ZoneInfo(name)).utcoffset() or dt.timedelta(0)
    minutes = round(offset.total_seconds() / 60)
    sign = "+" if minutes >= 0 else "-"
    return f"UTC{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"


def zone_label(name: str, now=None) -> str:
    """ "Europe — Berlin (UTC+01:00)"; "Argentina / Buenos Aires" under America; a name
    outside the regions (UTC, an old alias a player kept) as it is."""
    region, _slash, place = name.partition("/")
    offset = utc_offset(name, now)
    if region in REGIONS and place:
        city = place.replace("_", " ").replace("/", " / ")
        return gettext("%(region)s — %(city)s (%(offset)s)") % {
            "region": REGIONS[region],
            "city": city,
            "offset": offset,
        }
    if name == "UTC":
        return gettext("Universal time (%(offset)s)") % {"offset": offset}
    return f"{name.replace('_', ' ')} ({offset})"


def time_zone_choices(current: str = "", now=None) -> list:
    """The picker's choices: first the player's zone and the ``COMMON_ZONES``, then every
    place's zone grouped by region, each group in the order of its cities' names."""
    now = now or timezone.now()
    places = place_zones()
    first = [name for name in dict.fromkeys([current, *COMMON_ZONES]) if name in time_zones()]
    groups = {}
    for name in places:
        groups.setdefault(name.split("/", 1)[0], []).append(name)
    choices = [(gettext("Common time zones"), [(name, zone_label(name, now)) for name in first])]
    for region in sorted(groups, key=lambda r: str(REGIONS[r])):
        names = sorted(groups[region], key=lambda n: n.split("/", 1)[1])
        choices.append((str(REGIONS[region]), [(n, zone_label(n, now)) for n in names]))
    return choices


class TimeZoneField(forms.ChoiceField):
    """The picker: offers ``time_zone_choices``, accepts any zone the account accepts
    (``accounts.models.validate_time_zone``: also an old name kept from before)."""

    def __init__(self, **kwargs):
        kwargs.setdefault("choices", time_zone_choices)
        super().__init__(**kwargs)

    def valid_value(self, value):
        return value in time_zones()

    def validate(self, value):
        if value in self.empty_values:
            super().validate(value)  # required: Django's own words
        validate_time_zone(value)  # the account's words for any other refusal

    def offer(self, current: str) -> None:
        """The choices with ``current`` (the player's zone) first."""
        self.choices = time_zone_choices(current)


class SignupForm(AllauthSignupForm):
    """allauth's sign-up; the page's script fills in the browser's time zone, and the
    language the page was shown in becomes the player's (their emails speak it)."""

    time_zone = forms.CharField(required=False, widget=forms.HiddenInput, max_length=64)

    def clean_time_zone(self):
        name = self.cleaned_data.get("time_zone") or ""
        return name if name in time_zones() else "UTC"

    def save(self, request):
        user = super().save(request)
        user.time_zone = self.cleaned_data.get("time_zone") or "UTC"
        user.language = translation.get_language() or ""
        user.save(update_fields=["time_zone", "language"])
        return user


class HolidayForm(forms.Form):
    start = forms.DateField(
        label=_("First day away"), widget=forms.DateInput(attrs={"type": "date"})
    )
    end = forms.DateField(label=_("Last day away"), widget=forms.DateInput(attrs={"type": "date"}))


class TokenForm(forms.Form):
    """A new token: its name, its scopes (accounts.tokens.SCOPES) and when it expires."""

    SCOPE_CHOICES = [
        ("read", _("read: see games, invitations and the streams")),
        ("play", _("play: move, invite, chat (includes read)")),
        ("bot", _("bot: make this account a bot account")),
    ]
    EXPIRY_CHOICES = [
        ("", _("never (until revoked)")),
        ("7", _("in 7 days")),
        ("30", _("in 30 days")),
        ("90", _("in 90 days")),
        ("365", _("in a year")),
    ]

    name = forms.CharField(max_length=60, help_text=_("What the token is for, e.g. “my bot”."))
    scopes = forms.MultipleChoiceField(
        label=_("Scopes"),
        choices=SCOPE_CHOICES,
        initial=["read", "play"],
        widget=forms.CheckboxSelectMultiple,
    )
    expires_in_days = forms.TypedChoiceField(
        label=_("Expires"),
        choices=EXPIRY_CHOICES,
        coerce=int,
        empty_value=None,
        required=False,
    )
