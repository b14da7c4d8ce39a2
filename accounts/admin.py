from django import forms
from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as BaseUserAdmin
from django.urls import reverse
from django.utils.html import format_html

from moderation.actions import reasoned_action
from moderation.services import do_lift_suspension, do_suspend

from .models import ApiToken, Block, Holiday, User


class SuspendedFilter(admin.SimpleListFilter):
    title = "suspension"
    parameter_name = "suspended"

    def lookups(self, request, model_admin):
        return [("yes", "suspended"), ("no", "not suspended")]

    def queryset(self, request, queryset):
        from django.utils import timezone

        now = timezone.now()
        if self.value() == "yes":
            return queryset.filter(suspended_until__gt=now)
        if self.value() == "no":
            return queryset.exclude(suspended_until__gt=now)
        return queryset


@admin.register(User)
class UserAdmin(BaseUserAdmin):
    fieldsets = (
        *BaseUserAdmin.fieldsets,
        ("Preferences", {"fields": ("email_on_turn", "daily_digest", "email_reminders")}),
        ("Moderation", {"fields": ("suspended_until", "games")}),
    )
    list_display = ("username", "email", "is_staff", "suspended_until", "date_joined", "games")
    list_filter = (SuspendedFilter, "is_staff", "is_superuser", "is_active")
    actions = ["suspend", "lift_suspension"]

    def get_readonly_fields(self, request, obj=None):
        # The suspension changes only through the audited actions.
        return ("suspended_until", "games", *super().get_readonly_fields(request, obj))

    @admin.display(description="games")
    def games(self, user):
        url = reverse("admin:games_game_changelist") + f"?q={user.username}"
        return format_html("<a href='{}'>their games</a>", url)

    def has_suspend_permission(self, request):
        return request.user.has_perm("accounts.suspend_user")

    @admin.action(description="Suspend (their games go to the opponents)", permissions=["suspend"])
    def suspend(self, request, queryset):
        return reasoned_action(
            self,
            request,
            queryset,
            title="Suspend",
            perform=lambda user, data: do_suspend(
                user.pk, request.user, data["reason"], days=data.get("days")
            ),
            extra_fields={
                "days": forms.IntegerField(
                    min_value=1, required=False, help_text="Leave empty to suspend for good."
                )
            },
        )

    @admin.action(description="Lift the suspension", permissions=["suspend"])
    def lift_suspension(self, request, queryset):
        return reasoned_action(
            self,
            request,
            queryset,
            title="Lift the suspension",
            perform=lambda user, data: do_lift_suspension(user.pk, request.user, data["reason"]),
        )


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ("name", "user", "hint", "created_at", "last_used_at")
    list_select_related = ("user",)
    raw_id_fields = ("user",)
    readonly_fields = ("digest", "hint", "created_at", "last_used_at")
    search_fields = ("user__username", "name")


@admin.register(Holiday)
class HolidayAdmin(admin.ModelAdmin):
    list_display = ("user", "start", "end")
    list_select_related = ("user",)
    raw_id_fields = ("user",)


@admin.register(Block)
class BlockAdmin(admin.ModelAdmin):
    list_display = ("user", "blocked", "created_at")
    list_select_related = ("user", "blocked")
    raw_id_fields = ("user", "blocked")
