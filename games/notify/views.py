"""The preferences form's answer, and the one-click unsubscribe link of every email."""

from __future__ import annotations

from urllib.parse import quote

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core import signing
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods

from accounts.models import User

from . import preferences
from .preferences import PreferencesForm


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def preferences_page(request):
    """The settings page's form: notifications, language, time zone. Any error saves
    nothing and says what was wrong. A GET (this address was once a page of its own,
    and bookmarks keep it) goes to the settings page."""
    settings_page = reverse("settings")
    if request.method != "POST":
        return redirect(settings_page + "#notifications")
    form = PreferencesForm(request.POST, instance=User.objects.get(pk=request.user.pk))
    if form.is_valid():
        form.save()
        messages.success(request, _("Preferences saved."))
        return redirect(settings_page + "#notifications")
    errors = "; ".join(str(e) for field in form.errors.values() for e in field)
    messages.error(request, _("Not saved: %(errors)s") % {"errors": errors})
    return redirect(settings_page + "#language" if "time_zone" in form.errors else settings_page)


@never_cache
@csrf_exempt  # no session acts: the signed token does, and mail clients post without cookies
@require_http_methods(["GET", "HEAD", "POST"])
def unsubscribe(request, token):
    """The link of every email of ours, without logging in: the token (signed,
    ``preferences.unsubscribe_token``) names the player and the kind of email. GET says
    what will stop and changes nothing, since mail scanners open links; POST, the page's
    button or a mail client's one-click (RFC 8058), turns them off (``Kind.question``
    and ``Kind.unsubscribed`` are the words). A link that is not ours: a 400 page."""
    try:
        user_id, kind = preferences.read_unsubscribe_token(token)
    except signing.BadSignature:
        return render(request, "accounts/unsubscribe.html", {"invalid": True}, status=400)
    user = User.objects.filter(pk=user_id).first()
    if user is None:  # the account is gone: nothing to send to
        return render(request, "accounts/unsubscribe.html", {"gone": True}, status=404)
    if request.method == "POST":
        preferences.unsubscribe(user, kind)
    profile = reverse("settings") + "#notifications"
    if request.user.pk != user.pk:
        profile = reverse("account_login") + "?next=" + quote(profile)  # then the settings
    context = {
        "kind": kind.name,
        "done": request.method == "POST",
        "off": not preferences.receives(user, kind),
        "question": kind.question,
        "unsubscribed": kind.unsubscribed,
        "profile_url": profile,
    }
    # in the language of the emails the link came in
    with translation.override(user.language or translation.get_language()):
        return render(request, "accounts/unsubscribe.html", context)
