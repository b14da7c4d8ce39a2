"""The admin of the slice: each player's notification choices, a box per choice of the
kinds' table, and the outbox, read-only (its kinds are the table's)."""

from __future__ import annotations

from django.contrib import admin

from shanghaien.lib.admin import ReadOnlyAdmin

from . import kinds
from .models import Notification, NotificationPreferences
from .preferences import ChoicesForm, choice_fields


@admin.register(NotificationPreferences)
class NotificationPreferencesAdmin(admin.ModelAdmin):
    list_display = ("username", "email", "is_active")
    search_fields = ("username", "email")
    ordering = ("username",)

    def has_add_permission(self, request):
        return False  # a player is added as an account; these are their choices

    def has_delete_permission(self, request, obj=None):
        return False

    def get_fieldsets(self, request, obj=None):
        rows = [
            (str(kind.label), {"fields": [kind.choice(c).field for c in kind.channels]})
            for kind in kinds.KINDS
        ]
        return [(None, {"fields": ["username"]}), *rows]

    def get_readonly_fields(self, request, obj=None):
        return ("username",)

    def get_form(self, request, obj=None, change=False, **kwargs):
        # The boxes are declared on the form, as the admin asks of a field that is not
        # the model's, from the table as it is now.
        kwargs["form"] = type("NotificationChoicesForm", (ChoicesForm,), choice_fields())
        return super().get_form(request, obj, change, **kwargs)


@admin.register(Notification)
class NotificationAdmin(ReadOnlyAdmin, admin.ModelAdmin):
    list_display = ("created_at", "user", "kind", "channel", "outcome", "attempts", "sent_at")
    list_filter = ("kind", "channel", "outcome")
    list_select_related = ("user",)
    raw_id_fields = ("user", "game", "subscription")
    search_fields = ("user__username", "key")
    date_hierarchy = "created_at"
