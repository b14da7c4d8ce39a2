from django.contrib import admin

from .actions import ReadOnlyAdmin, reasoned_action
from .models import AuditEntry, Report
from .services import do_resolve_report


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

    @admin.action(description="Close the report", permissions=["resolve"])
    def resolve(self, request, queryset):
        return reasoned_action(
            self,
            request,
            queryset,
            title="Close the report",
            perform=lambda report, data: do_resolve_report(report.pk, request.user, data["reason"]),
        )
