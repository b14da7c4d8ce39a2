"""How django-allauth behaves on this site: its messages, its rate limits and the
login-attempt key, which the throttle reads back to say when to try again."""

from __future__ import annotations

from allauth.account.adapter import DefaultAccountAdapter
from allauth.account.internal.stagekit import clear_login
from django.conf import settings
from django.contrib import messages
from django.shortcuts import redirect


class AccountAdapter(DefaultAccountAdapter):
    def login_attempts_key(self, request, credentials: dict) -> str:
        """The key allauth counts wrong passwords under, for one account tried."""
        return self._get_login_attempts_cache_key(request, **credentials)

    def pre_login(self, request, user, **kwargs):
        """No way in while suspended, whichever way leads there (the log in form says
        why on its own; this also holds after a password reset or a confirmation)."""
        if getattr(user, "bot_level", ""):  # a computer opponent's account: nobody logs in
            clear_login(request)
            return redirect("account_login")
        if getattr(user, "is_suspended", False):
            from .forms import suspension_message

            clear_login(request)
            messages.error(request, suspension_message(user))
            return redirect("account_login")
        return super().pre_login(request, user, **kwargs)

    def get_from_email(self):
        return settings.DEFAULT_FROM_EMAIL

    def send_mail(self, template_prefix: str, email: str, context: dict) -> None:
        super().send_mail(template_prefix, email, {**context, "site_url": settings.SITE_URL})
