"""The moderators' admin: reports, the audit log, and the audited actions it adds to the
admins of the other apps (suspend a player, annul or award a game, hide a message).

Those admins are the other apps' own classes, registered again here with the actions
added: the apps do not know about moderation; moderation knows them.
"""

from django import forms
from django.contrib import admin
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

from accounts.admin import UserAdmin
from accounts.models import User
from games.access import seating
from games.admin import ChatMessageAdmin, GameAdmin
from games.models import ChatMessage, Game
from shanghaien.lib.admin import ReadOnlyAdmin

from .actions import reasoned_action
from .models import REASON_MAX, AuditEntry, Report
from .services import (
    do_adjudicate,
    do_annul,
    do_hide_message,
    do_lift_suspension,
    do_resolve_report,
    do_suspend,
)


@admin.register(AuditEntry)
class AuditEntryAdmin(ReadOnlyAdmin, admin.ModelAdmin):
    list_display = ("created_at", "moderator", "action", "target_type", "target", "reason")
    list_filter = ("action", "target_type")
    list_select_related = ("moderator",)
    search_fields = ("target", "reason", "moderator__username")
    readonly_fields = [f.name for f in AuditEntry._meta.fields]


@admin.register(Report)
class ReportAdmin(admin.ModelAdmin):
    list_display = ("created_at", "reporter", "game", "message", "status", "reason")
    list_filter = ("status",)
    list_select_related = ("reporter", "game", "message")
    raw_id_fields = ("reporter", "game", "message", "resolved_by")
    readonly_fields = [f.name for f in Report._meta.fields]
    actions = ["resolve"]

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    def has_resolve_permission(self, request):
        return request.user.has_perm("moderation.resolve_report")

    @admin.action(description=_("Close the report"), permissions=["resolve"])
    def resolve(self, request, queryset):
        return reasoned_action(
            self,
            request,
            queryset,
            title=_("Close the report"),
            perform=lambda report, data: do_resolve_report(report.pk, request.user, data["reason"]),
        )


admin.site.unregister(User)


@admin.register(User)
class ModeratedUserAdmin(UserAdmin):
    fieldsets = (
        *UserAdmin.fieldsets[:-1],
        (_("Moderation"), {"fields": ("suspended_until", "games")}),
    )
    list_display = (*UserAdmin.list_display, "games")
    actions = ["suspend", "lift_suspension"]

    def get_readonly_fields(self, request, obj=None):
        return ("games", *super().get_readonly_fields(request, obj))

    @admin.display(description=_("games"))
    def games(self, user):
        url = reverse("admin:games_game_changelist") + f"?q={user.username}"
        return format_html("<a href='{}'>{}</a>", url, _("their games"))

    def has_suspend_permission(self, request):
        return request.user.has_perm("accounts.suspend_user")

    @admin.action(
        description=_("Suspend (their games go to the opponents)"), permissions=["suspend"]
    )
    def suspend(self, request, queryset):
        return reasoned_action(
            self,
            request,
            queryset,
            title=_("Suspend"),
            perform=lambda user, data: do_suspend(
                user.pk, request.user, data["reason"], days=data.get("days")
            ),
            extra_fields={
                "days": forms.IntegerField(
                    min_value=1, required=False, help_text=_("Leave empty to suspend for good.")
                ),
                "reason": forms.CharField(
                    label=_("Reason"),
                    widget=forms.Textarea(attrs={"rows": 3}),
                    max_length=REASON_MAX,
                    help_text=_("The player reads it when they try to log in."),
                ),
            },
        )

    @admin.action(description=_("Lift the suspension"), permissions=["suspend"])
    def lift_suspension(self, request, queryset):
        return reasoned_action(
            self,
            request,
            queryset,
            title=_("Lift the suspension"),
            perform=lambda user, data: do_lift_suspension(user.pk, request.user, data["reason"]),
        )


admin.site.unregister(Game)


@admin.register(Game)
class ModeratedGameAdmin(GameAdmin):
    actions = ["annul", "adjudicate"]

    def has_annul_permission(self, request):
        return request.user.has_perm("games.annul_game")

    def has_adjudicate_permission(self, request):
        return request.user.has_perm("games.adjudicate_game")

    @admin.action(description=_("Annul (no result)"), permissions=["annul"])
    def annul(self, request, queryset):
        return reasoned_action(
            self,
            request,
            queryset,
            title=_("Annul the game"),
            perform=lambda game, data: do_annul(game.pk, request.user, data["reason"]),
        )

    @admin.action(description=_("Adjudicate (award the win)"), permissions=["adjudicate"])
    def adjudicate(self, request, queryset):
        def perform(game, data):
            winner = seating(game).players[int(data["winner"])]
            do_adjudicate(game.pk, request.user, winner, data["reason"])

        choices = [
            ("0", _("the player at seat 0 (the inviter)")),
            ("1", _("the player at seat 1")),
        ]
        return reasoned_action(
            self,
            request,
            queryset,
            title=_("Award the game"),
            perform=perform,
            extra_fields={"winner": forms.ChoiceField(choices=choices)},
        )


admin.site.unregister(ChatMessage)


@admin.register(ChatMessage)
class ModeratedChatMessageAdmin(ChatMessageAdmin):
    actions = ["hide"]

    def has_hide_permission(self, request):
        return request.user.has_perm("games.hide_chatmessage")

    @admin.action(description=_("Hide the message"), permissions=["hide"])
    def hide(self, request, queryset):
        return reasoned_action(
            self,
            request,
            queryset,
            title=_("Hide the message"),
            perform=lambda message, data: do_hide_message(message.pk, request.user, data["reason"]),
        )
