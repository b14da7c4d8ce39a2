from django import forms
from django.contrib.auth.forms import UserCreationForm
from django.utils.translation import gettext_lazy as _

from .models import User


class SignupForm(UserCreationForm):
    """Django's sign-up form; it already refuses a name that differs only in case."""

    class Meta:
        model = User
        fields = ("username", "email")


class PreferencesForm(forms.ModelForm):
    class Meta:
        model = User
        fields = ("email", "email_on_turn", "daily_digest", "email_reminders")


class HolidayForm(forms.Form):
    start = forms.DateField(
        label=_("First day away"), widget=forms.DateInput(attrs={"type": "date"})
    )
    end = forms.DateField(label=_("Last day away"), widget=forms.DateInput(attrs={"type": "date"}))


class TokenForm(forms.Form):
    name = forms.CharField(max_length=60, help_text=_("What the token is for, e.g. “my bot”."))
