from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST

from shanghaien.lib.errors import RateLimited, ServiceError
from shanghaien.lib.responses import rate_limited_page

from .forms import HolidayForm, PreferencesForm, SignupForm, TokenForm
from .holidays import do_cancel_holiday, do_declare_holiday
from .models import ApiToken
from .tokens import do_issue_token


def signup(request):
    if request.user.is_authenticated:
        return redirect("home")
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user, backend="accounts.backends.SuspensionAwareBackend")
        messages.success(request, _("Welcome aboard, %(name)s!") % {"name": user.username})
        return redirect("home")
    return render(request, "accounts/signup.html", {"form": form})


@login_required
@require_POST
def preferences(request):
    form = PreferencesForm(request.POST, instance=request.user)
    if form.is_valid():
        form.save()
        messages.success(request, _("Preferences saved."))
    else:
        messages.error(request, _("Not saved: %(errors)s") % {"errors": form.errors.as_text()})
    return redirect("profile", username=request.user.username)


@never_cache  # the one page that shows the token: no cache may keep a copy
@login_required
@require_POST
def create_token(request):
    form = TokenForm(request.POST)
    if not form.is_valid():
        max_length = TokenForm.base_fields["name"].max_length
        message = _("A token needs a name of at most %(max)d characters.") % {"max": max_length}
        messages.error(request, message)
        return redirect("profile", username=request.user.username)
    back = reverse("profile", args=[request.user.username])
    try:
        token, raw = do_issue_token(request.user, form.cleaned_data["name"])
    except RateLimited as error:
        return rate_limited_page(request, error, back)
    except ServiceError as error:
        messages.error(request, error.message)
        return redirect(back)
    return render(request, "accounts/token_created.html", {"token": token, "raw": raw})


@login_required
@require_POST
def revoke_token(request, pk):
    token = get_object_or_404(ApiToken, pk=pk, user=request.user)
    token.delete()
    messages.success(request, _("Token “%(name)s” revoked.") % {"name": token.name})
    return redirect("profile", username=request.user.username)


@login_required
@require_POST
def declare_holiday(request):
    form = HolidayForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Give the first and the last day away."))
    else:
        try:
            do_declare_holiday(request.user, form.cleaned_data["start"], form.cleaned_data["end"])
        except ServiceError as error:
            messages.error(request, error.message)
        else:
            message = _("Holiday declared: your deadlines pause while you are away.")
            messages.success(request, message)
    return redirect("profile", username=request.user.username)


@login_required
@require_POST
def cancel_holiday(request, pk):
    try:
        do_cancel_holiday(request.user, pk)
    except ServiceError as error:
        messages.error(request, error.message)
    return redirect("profile", username=request.user.username)
