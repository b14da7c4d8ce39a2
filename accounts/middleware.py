"""Per-request account rules: staff open no admin page without a second factor, and a
player's pages speak their language in their time zone.

Staff and the second factor:

Moderators and superusers (``is_staff``) must have an authenticator app (TOTP) and must
have used it, or one of their recovery codes, in this session: at log in, when setting
the app up (accounts.views.ActivateTOTPView), or when asked again. Without an app they
are sent to set one up; with one but a session that never used it, to confirm a code.
Other pages are left alone.
"""

from __future__ import annotations

from allauth.account.authentication import get_authentication_records
from allauth.mfa.adapter import get_adapter as get_mfa_adapter
from allauth.mfa.models import Authenticator
from django.contrib import messages
from django.http import HttpResponseRedirect
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.http import urlencode
from django.utils.translation import gettext as _

# The user whose session set up an authenticator app: that took one of its codes, which
# counts as the second factor for the session (allauth records the ones it asks for).
SECOND_FACTOR_USED = "second_factor_used_by"


def record_second_factor(request) -> None:
    request.session[SECOND_FACTOR_USED] = request.user.pk


def used_second_factor(request) -> bool:
    if request.session.get(SECOND_FACTOR_USED) == request.user.pk:
        return True
    records = get_authentication_records(request, request.user)
    return any(record.get("method") == "mfa" for record in records)


class StaffSecondFactorMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.path.startswith(reverse("admin:index")) and request.user.is_staff:
            refusal = staff_second_factor_refusal(request)
            if refusal is not None:
                return refusal
        return self.get_response(request)


def staff_second_factor_refusal(request):
    """Where a staff member goes before a page of theirs (the admin, the moderators'
    console) opens: to set up an authenticator app, or to use it in this session; None
    once they have. The page they asked for is the ``next`` of either."""
    query = "?" + urlencode({"next": request.get_full_path()})
    if not get_mfa_adapter().is_mfa_enabled(request.user, [Authenticator.Type.TOTP]):
        messages.warning(
            request,
            _(
                "Staff accounts need a second factor before the admin opens: set up an "
                "authenticator app."
            ),
        )
        return HttpResponseRedirect(reverse("mfa_activate_totp") + query)
    if not used_second_factor(request):
        return HttpResponseRedirect(reverse("mfa_reauthenticate") + query)
    return None


class PlayerLocaleMiddleware:
    """A logged-in player's own language and time zone, for the whole request.

    Django's LocaleMiddleware has chosen from the chooser's cookie or the browser; a
    player's saved language overrides it. Their time zone shows every time on the page
    (Django's template filters convert to the active zone).
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        user = request.user
        if user.is_authenticated:
            if user.language:
                translation.activate(user.language)
                request.LANGUAGE_CODE = user.language
            timezone.activate(user.zone)
        try:
            return self.get_response(request)
        finally:
            timezone.deactivate()
