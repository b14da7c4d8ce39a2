from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as BaseUserAdmin

from .models import ApiToken, User


@admin.register(User)
class UserAdmin(BaseUserAdmin):
    fieldsets = (*BaseUserAdmin.fieldsets, ("Preferences", {"fields": ("email_on_turn",)}))


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ("name", "user", "hint", "created_at", "last_used_at")
    list_select_related = ("user",)
    raw_id_fields = ("user",)
    readonly_fields = ("digest", "hint", "created_at", "last_used_at")
    search_fields = ("user__username", "name")
