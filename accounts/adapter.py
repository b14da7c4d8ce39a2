"""How django-allauth behaves on this site: who may log in, when the address must be
confirmed, and its emails."""

from __future__ import annotations

import time

from allauth.account import app_settings as account_settings
from allauth.account.adapter import DefaultAccountAdapter
from allauth.account.app_settings import EmailVerificationMethod
from allauth.account.authentication import get_authentication_records
from allauth.account.stages import EmailVerificationStage
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import update_session_auth_hash
from django.core.exceptions import ValidationError
from django.shortcuts import redirect
from django.utils import translation
from django.utils.translation import gettext


class SignupConfirmationStage(EmailVerificationStage):
    """Confirming the address is mandatory for the sign-up's own log in only, which is
    what lets allauth answer a sign-up with a taken address as it answers a new one (no
    one comes in either way; the owner of a taken address is told by email). A later
    log in with the password lets an account in whose address is not confirmed yet, as
    before, so that no older account (without an address, or never confirmed) is shut
    out."""

    def handle(self):
        if not self.login.signup:
            self.login.email_verification = EmailVerificationMethod.OPTIONAL
        return super().handle()


STAGE = "allauth.account.stages.EmailVerificationStage"


class AccountAdapter(DefaultAccountAdapter):
    def get_login_stages(self) -> list[str]:
        stages = super().get_login_stages()
        return [f"{__name__}.SignupConfirmationStage" if s == STAGE else s for s in stages]

    def pre_login(self, request, user, **kwargs):
        """No way in while suspended, whichever way leads there (the log in form says
        why on its own; this also holds after a password reset or a confirmation).

        A refused log in leaves nothing of itself in the session (allauth's record of the
        password just given, a log in waiting for a later step): the session is flushed,
        as Django's logout does; the visitor was not logged in."""
        if getattr(user, "bot_level", ""):  # a computer opponent's account: nobody logs in
            request.session.flush()
            return redirect("account_login")
        if getattr(user, "is_suspended", False):
            from .forms import suspension_message

            request.session.flush()
            messages.error(request, suspension_message(user))
            return redirect("account_login")
        return super().pre_login(request, user, **kwargs)

    def is_reauthentication_required(self, *, app: str, **kwargs) -> bool:
        """allauth asks for the password again before a second factor is set up (and
        other sensitive steps) unless it was asked again within
        ``ACCOUNT_REAUTHENTICATION_TIMEOUT``; a log in that recent counts as well: a new
        staff member sent from the log in to set up an authenticator app is not asked
        for the password typed seconds before."""
        request = self.request
        if request is not None and request.user.is_authenticated:
            records = get_authentication_records(request, request.user)
            newest = max((record.get("at", 0) for record in records), default=0)
            if time.time() - newest < account_settings.REAUTHENTICATION_TIMEOUT:
                return False
        return super().is_reauthentication_required(app=app, **kwargs)

    def clean_username(self, username: str, shallow: bool = False) -> str:
        """allauth's checks, and names that look like a guest's are kept for guests."""
        from .guest_accounts import GUEST_PREFIX, is_guest_name

        if is_guest_name(username):
            message = gettext("Names beginning with “%(prefix)s” are kept for guests.")
            raise ValidationError(message % {"prefix": GUEST_PREFIX}, code="guest_name")
        return super().clean_username(username, shallow=shallow)

    def new_user(self, request):
        """A guest who signs up becomes the account (accounts.guest_accounts): the same
        row, read afresh, so that its games stay its own."""
        user = getattr(request, "user", None)
        if getattr(user, "is_guest", False):
            from .models import User

            return User.objects.get(pk=user.pk)
        return super().new_user(request)

    def save_user(self, request, user, form, commit=True):
        was_guest = getattr(user, "is_guest", False)
        if was_guest:
            user.guest_until = None
        user = super().save_user(request, user, form, commit=commit)
        if was_guest and commit:
            # the session that played as the guest stays logged in, now as the account
            update_session_auth_hash(request, user)
        return user

    def get_from_email(self):
        return settings.DEFAULT_FROM_EMAIL

    def send_account_already_exists_mail(self, email: str) -> None:
        """Someone signed up with an address that has an account: its owner is told, in
        their own language, while the sign-up page answers as for a new address."""
        from .models import User

        owner = User.objects.filter(email__iexact=email).only("language").first()
        language = (owner and owner.language) or translation.get_language()
        with translation.override(language):
            super().send_account_already_exists_mail(email)

    def send_mail(self, template_prefix: str, email: str, context: dict) -> None:
        super().send_mail(template_prefix, email, {**context, "site_url": settings.SITE_URL})
