from allauth.account.forms import LoginForm as AllauthLoginForm
from allauth.account.forms import SignupForm as AllauthSignupForm
from django import forms
from django.core.exceptions import ValidationError
from django.utils import timezone, translation
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from shanghaien.lib.local_time import local_moment
from shanghaien.lib.ratelimit import try_again_in

from .models import SUSPENDED_FOR_GOOD, User, time_zones
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


def time_zone_choices():
    return [(name, name.replace("_", " ")) for name in sorted(time_zones())]


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
    name = forms.CharField(max_length=60, help_text=_("What the token is for, e.g. “my bot”."))
