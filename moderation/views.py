"""The moderators' console: the open reports, oldest first, each handled in one step.

For staff who may close reports (``roles.is_moderator``), with the second factor the
admin asks of them (``accounts.middleware``); anyone else is refused (403), a visitor
not logged in is sent to log in."""

from __future__ import annotations

from functools import wraps

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils.http import urlencode
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from accounts.middleware import staff_second_factor_refusal
from shanghaien.lib.errors import ServiceError

from .forms import HandleReportForm
from .queries import console_page
from .roles import is_moderator
from .services import do_handle_report


def moderators_only(view):
    @wraps(view)
    def guarded(request, *args, **kwargs):
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        if not is_moderator(request.user):
            raise PermissionDenied
        refusal = staff_second_factor_refusal(request)
        if refusal is not None:
            return refusal
        return view(request, *args, **kwargs)

    return guarded


@require_GET
@moderators_only
def console(request):
    page, cases = console_page(request.GET.get("page"))
    return render(
        request,
        "moderation/console.html",
        {"page": page, "cases": cases, "form": HandleReportForm()},
    )


def _back_to_console(request):
    page = request.POST.get("page", "")
    query = "?" + urlencode({"page": page}) if page.isdigit() and page.isascii() else ""
    return HttpResponseRedirect(reverse("moderation_console") + query)


@require_POST
@moderators_only
def handle_report(request, pk):
    """One of a report's buttons: hide, warn, suspend or close as unfounded, with the
    reason typed above them."""
    form = HandleReportForm(request.POST)
    if not form.is_valid():
        errors = "; ".join(str(e) for field in form.errors.values() for e in field)
        messages.error(request, _("Report %(id)s: %(errors)s") % {"id": pk, "errors": errors})
        return _back_to_console(request)
    try:
        do_handle_report(
            pk,
            request.user,
            form.cleaned_data["handling"],
            form.cleaned_data["reason"],
            days=form.suspension_days,
        )
    except ServiceError as error:
        level = messages.WARNING if error.code == "resolved" else messages.ERROR
        messages.add_message(
            request, level, _("Report %(id)s: %(message)s") % {"id": pk, "message": error.message}
        )
    else:
        messages.success(
            request, _("Report %(id)s handled: the players concerned are told.") % {"id": pk}
        )
    return _back_to_console(request)
