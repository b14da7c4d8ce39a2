from allauth.account import views as allauth_views
from allauth.account.models import EmailAddress
from allauth.core import ratelimit
from allauth.decorators import rate_limit
from allauth.mfa.recovery_codes import views as recovery_codes_views
from allauth.mfa.totp import views as totp_views
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import NON_FIELD_ERRORS
from django.http import HttpResponseRedirect
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.decorators import method_decorator
from django.utils.http import url_has_allowed_host_and_scheme, urlencode
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views import i18n
from django.views.decorators.cache import never_cache
from django.views.decorators.debug import sensitive_post_parameters
from django.views.decorators.http import require_POST
from django.views.generic.edit import FormView

from shanghaien.lib.errors import RateLimited, ServiceError
from shanghaien.lib.ratelimit import try_again_in
from shanghaien.lib.responses import rate_limited_page

from .blocks import do_block, do_unblock
from .devices import do_remove_device
from .follows import do_follow, do_unfollow
from .forms import HolidayForm, TokenForm
from .holidays import do_cancel_holiday, do_declare_holiday
from .middleware import record_second_factor, used_second_factor
from .models import ApiToken, User
from .notices import do_dismiss_notice
from .online import do_show_presence
from .throttle import wait_for
from .tokens import do_issue_token, do_revoke_token


class LoginView(allauth_views.LoginView):
    """allauth's log in; refused for too many failed attempts, the answer is a 429."""

    def form_invalid(self, form):
        response = super().form_invalid(form)
        if form.has_error(NON_FIELD_ERRORS, "too_many_login_attempts"):
            response.status_code = 429
            response["Retry-After"] = str(form.retry_after)
        return response


class SignupView(allauth_views.SignupView):
    """allauth's sign-up. A guest (accounts.guest_accounts) is logged in, which allauth's
    page answers by sending them away: here a guest gets the form, and signing up turns
    their own account into the new one (accounts.adapter), their games with it."""

    def dispatch(self, request, *args, **kwargs):
        if getattr(request.user, "is_guest", False):
            return self.guest_dispatch(request, *args, **kwargs)
        return super().dispatch(request, *args, **kwargs)

    @method_decorator(rate_limit(action="signup"))
    @method_decorator(sensitive_post_parameters("password1", "password2"))
    @method_decorator(never_cache)
    def guest_dispatch(self, request, *args, **kwargs):
        # the form and its answers as allauth's, without its check of a logged-in visitor
        return FormView.dispatch(self, request, *args, **kwargs)


# Where a staff member was going when sent to set up an authenticator app (the admin,
# the moderators' console): kept through the set-up, offered after the recovery codes.
SETUP_NEXT = "second_factor_setup_next"


def safe_next(request, url) -> str:
    """``url`` if it is a path of this site, else ""."""
    url = url or ""
    if url.startswith("/") and url_has_allowed_host_and_scheme(
        url, {request.get_host()}, request.is_secure()
    ):
        return url
    return ""


class ActivateTOTPView(totp_views.ActivateTOTPView):
    """allauth's set-up of an authenticator app. Setting it up takes one of its codes, so
    the session has used its second factor (accounts.middleware), as a log in with it.

    allauth's form posts without the ``next`` its page was opened with, and goes on to
    the recovery codes: the page keeps ``next`` in the session, and the recovery codes
    page offers to continue there (``RecoveryCodesView``)."""

    def get(self, request, *args, **kwargs):
        destination = safe_next(request, request.GET.get("next"))
        if destination:
            request.session[SETUP_NEXT] = destination
        return super().get(request, *args, **kwargs)

    def form_valid(self, form):
        response = super().form_valid(form)
        record_second_factor(self.request)
        destination = safe_next(self.request, self.request.session.pop(SETUP_NEXT, ""))
        if destination:
            if self.did_generate_recovery_codes:
                query = urlencode({"next": destination})
                return HttpResponseRedirect(reverse("mfa_view_recovery_codes") + "?" + query)
            return HttpResponseRedirect(destination)
        return response


class RecoveryCodesView(recovery_codes_views.ViewRecoveryCodesView):
    """allauth's recovery codes, with a way on to where the player was going when they
    set up their authenticator app (``ActivateTOTPView``)."""

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context["continue_to"] = safe_next(self.request, self.request.GET.get("next"))
        return context


# allauth's views answer a refused attempt with ROOT_URLCONF's handler429; which action
# each page counts, to say when it may be tried again.
_ACTIONS = {
    "account_login": "login",
    "account_signup": "signup",
    "account_reset_password": "reset_password",
    "account_reset_password_from_key": "reset_password_from_key",
    "account_change_password": "change_password",
    "account_set_password": "change_password",
    "account_email": "manage_email",
    "account_reauthenticate": "reauthenticate",
}


def back_to_settings(section: str) -> HttpResponseRedirect:
    """Back to the section of the settings page (games.settings_page, by its URL's name)
    whose form was sent."""
    return HttpResponseRedirect(reverse("settings") + "#" + section)


def too_many_requests(request):
    """The 429 page of allauth's refusals: what was refused and when to try again."""
    match = request.resolver_match
    action = _ACTIONS.get(match.url_name if match else "", "")
    key = (request.POST.get("email") or "").strip().lower() or None
    wait = wait_for(request, action, key=key) if action else 60
    error = RateLimited(_("Too many attempts in a short time.") + " " + try_again_in(wait), wait)
    return rate_limited_page(request, error, request.path)


@login_required
@require_POST
def resend_confirmation(request):
    """The banner's button: the link to confirm one's address, again (rate-limited)."""
    back = _back(request)
    address = EmailAddress.objects.filter(user=request.user, verified=False).first()
    if address is None:
        messages.info(request, _("There is no address waiting for confirmation."))
        return HttpResponseRedirect(back)
    key = address.email.lower()
    if not ratelimit.consume(request, action="confirm_email", key=key):
        wait = wait_for(request, "confirm_email", key=key)
        message = _("A link was sent to %(email)s not long ago.") % {"email": address.email}
        return rate_limited_page(request, RateLimited(message, wait), back)
    address.send_confirmation(request)
    messages.success(
        request,
        _("We sent a link to %(email)s: open it to confirm the address.")
        % {"email": address.email},
    )
    return HttpResponseRedirect(back)


def _back(request) -> str:
    """Where the banner's page was: a path of this site, never another site's address."""
    back = request.POST.get("next") or ""
    if back.startswith("/") and url_has_allowed_host_and_scheme(
        back, {request.get_host()}, request.is_secure()
    ):
        return back
    return reverse("home")


@require_POST
def set_language(request):
    """The header's chooser: Django's view sets the cookie (and goes back to the page);
    a player's choice is kept on their account too, for their emails and other devices."""
    response = i18n.set_language(request)
    language = request.POST.get("language", "")
    if request.user.is_authenticated and language in dict(settings.LANGUAGES):
        User.objects.filter(pk=request.user.pk).update(language=language)
    return response


# -- the addresses of the pages before allauth: bookmarks and emails still in inboxes ------


def moved(name: str):
    def view(request, **kwargs):
        return redirect(name, permanent=True)

    return view


def old_reset_link(request, uidb64, token):
    """A password-reset link mailed before: its token is not allauth's; ask for a new one."""
    messages.info(request, _("That link has expired: ask for a new one below."))
    return redirect("account_reset_password", permanent=False)


@never_cache  # the one page that shows the token: no cache may keep a copy
@login_required
@require_POST
def create_token(request):
    form = TokenForm(request.POST)
    if not form.is_valid():
        if "name" in form.errors:
            max_length = TokenForm.base_fields["name"].max_length
            message = ngettext(
                "A token needs a name of at most %(max)d character.",
                "A token needs a name of at most %(max)d characters.",
                max_length,
            ) % {"max": max_length}
        elif "scopes" in form.errors:
            message = _("Choose at least one scope for the token.")
        else:
            message = _("Choose when the token expires from the list.")
        messages.error(request, message)
        return back_to_settings("tokens")
    back = reverse("settings") + "#tokens"
    if request.user.is_staff and not used_second_factor(request):
        messages.error(
            request,
            _("Staff make tokens from a session that used its second factor: log in again."),
        )
        return redirect(back)
    try:
        token, raw = do_issue_token(
            request.user,
            form.cleaned_data["name"],
            form.cleaned_data["scopes"],
            form.cleaned_data["expires_in_days"],
        )
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
    do_revoke_token(request.user, token.pk)  # its open streams and sockets close too
    messages.success(request, _("Token “%(name)s” revoked.") % {"name": token.name})
    return back_to_settings("tokens")


@login_required
@require_POST
def dismiss_notice(request, pk):
    """The button on a notice at the top of the page: it is no longer shown; back to
    the page it was on."""
    try:
        do_dismiss_notice(request.user, pk)
    except ServiceError as error:
        messages.error(request, error.message)
    return HttpResponseRedirect(_back(request))


@login_required
@require_POST
def remove_device(request, pk):
    """The settings page's button beside a device: no more notifications there."""
    try:
        do_remove_device(request.user, pk)
    except ServiceError as error:
        messages.error(request, error.message)
    else:
        messages.success(request, _("That device no longer receives notifications."))
    return back_to_settings("devices")


@login_required
@require_POST
def show_presence(request):
    """The settings page's choice whether others see when the player is online (the box
    unticked sends nothing: hidden)."""
    shown = request.POST.get("show_presence", "") not in ("", "0", "false", "off")
    do_show_presence(request.user, shown)
    if shown:
        messages.success(request, _("Others see when you are online and when you were last seen."))
    else:
        messages.success(request, _("Others no longer see when you are online or last seen."))
    return back_to_settings("presence")


@login_required
@require_POST
def block(request, username):
    """The button on another player's profile: no invitations or chat from them."""
    try:
        do_block(request.user, username)
    except ServiceError as error:
        messages.error(request, error.message)
    else:
        messages.success(
            request,
            _("You blocked %(name)s: no invitations or chat from them.") % {"name": username},
        )
    return redirect("profile", username=username)


@login_required
@require_POST
def unblock(request, username):
    try:
        do_unblock(request.user, username)
    except ServiceError as error:
        messages.error(request, error.message)
    else:
        messages.success(request, _("You no longer block %(name)s.") % {"name": username})
    return redirect("profile", username=username)


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
    return back_to_settings("holidays")


@login_required
@require_POST
def cancel_holiday(request, pk):
    try:
        do_cancel_holiday(request.user, pk)
    except ServiceError as error:
        messages.error(request, error.message)
    return back_to_settings("holidays")


def _after_follow(request, username):
    """Where a follow button was: its form's ``next`` (a path of this site), else the
    player's profile."""
    target = request.POST.get("next", "")
    if url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ) and target.startswith("/"):
        return HttpResponseRedirect(target)
    return redirect("profile", username=username)


@login_required
@require_POST
def follow(request, username):
    """The button on another player's profile: they join the friends page."""
    try:
        followed = do_follow(request.user, username)
    except ServiceError as error:
        messages.error(request, error.message)
    else:
        name = followed.followed.username
        messages.success(
            request, _("You follow %(name)s: see them on your friends page.") % {"name": name}
        )
    return _after_follow(request, username)


@login_required
@require_POST
def unfollow(request, username):
    try:
        do_unfollow(request.user, username)
    except ServiceError as error:
        messages.error(request, error.message)
    else:
        messages.success(request, _("You no longer follow %(name)s.") % {"name": username})
    return _after_follow(request, username)
