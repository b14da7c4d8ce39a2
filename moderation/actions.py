"""Admin actions that ask for a reason (and what else they need) on a page of their own."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.admin import helpers
from django.template.response import TemplateResponse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from shanghaien.lib.errors import ServiceError

from .models import REASON_MAX


class ReasonForm(forms.Form):
    reason = forms.CharField(
        label=gettext_lazy("Reason"),
        widget=forms.Textarea(attrs={"rows": 3}),
        max_length=REASON_MAX,
        required=True,
    )


def reasoned_action(
    modeladmin, request, queryset, *, title, perform, form_class=ReasonForm, extra_fields=None
):
    """Show the reason form; on submit, call ``perform(obj, cleaned_data)`` for each object."""
    form_class = type("ActionForm", (form_class,), dict(extra_fields or {}))
    form = form_class(request.POST if "apply" in request.POST else None)
    if form.is_bound and form.is_valid():
        done = 0
        for obj in queryset:
            try:
                perform(obj, form.cleaned_data)
                done += 1
            except ServiceError as error:
                message = _("%(object)s: %(message)s") % {"object": obj, "message": error.message}
                modeladmin.message_user(request, message, messages.ERROR)
        if done:
            message = ngettext("%(title)s: %(n)d item done.", "%(title)s: %(n)d items done.", done)
            modeladmin.message_user(
                request, message % {"title": title, "n": done}, messages.SUCCESS
            )
        return None
    return TemplateResponse(
        request,
        "admin/moderation/action_form.html",
        {
            **modeladmin.admin_site.each_context(request),
            "title": title,
            "form": form,
            "objects": queryset,
            "action": request.POST.get("action"),
            "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
            "opts": modeladmin.model._meta,
        },
    )
