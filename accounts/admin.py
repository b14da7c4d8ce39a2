from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as BaseUserAdmin
from django.utils.translation import gettext_lazy as _

from .devices import device_name
from .models import ApiToken, Block, Holiday, PushSubscription, User


class SuspendedFilter(admin.SimpleListFilter):
    title = _("suspension")
    parameter_name = "suspended"

    def lookups(self, request, model_admin):
        return [("yes", _("suspended")), ("no", _("not suspended"))]

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
        (
            _("Preferences"),
            {
                "fields": (
                    "language",
                    "time_zone",
                )
            },
        ),
        (_("Moderation"), {"fields": ("suspended_until",)}),
    )
    list_display = ("username", "email", "is_staff", "suspended_until", "date_joined")
    list_filter = (SuspendedFilter, "is_staff", "is_superuser", "is_active")

    def get_readonly_fields(self, request, obj=None):
        # The suspension changes only through the audited actions.
        return ("suspended_until", *super().get_readonly_fields(request, obj))


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


@admin.register(PushSubscription)
class PushSubscriptionAdmin(admin.ModelAdmin):
    """A player's devices, to see whether notifications get through. The endpoint and
    keys are not shown: whoever holds them can send to that device."""

    list_display = ("user", "device", "created_at", "last_success_at")
    list_select_related = ("user",)
    raw_id_fields = ("user",)
    fields = ("user", "device", "user_agent", "created_at", "last_success_at")
    readonly_fields = ("user", "device", "user_agent", "created_at", "last_success_at")
    search_fields = ("user__username",)

    @admin.display(description=_("device"))
    def device(self, obj):
        return device_name(obj.user_agent)

    def has_add_permission(self, request):
        return False  # only a browser can subscribe itself
