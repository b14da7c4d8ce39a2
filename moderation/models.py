"""Reports from players and the moderators' audit log."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from shanghaien.lib.db import AppendOnlyModel

REASON_MAX = 1000


class AuditEntry(AppendOnlyModel):
    """One moderator action: who, what, when, why and on what. Never changed or deleted."""

    moderator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="audit_entries"
    )
    action = models.CharField(max_length=30)
    target_type = models.CharField(max_length=30)
    target_id = models.CharField(max_length=40)
    target = models.CharField(max_length=200, help_text=_("the target as it was named then"))
    reason = models.TextField()
    details = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            # a player's moderation history, as the console counts it
            models.Index(fields=["target_type", "target_id", "action"], name="audit_target_idx")
        ]
        verbose_name = _("audit entry")
        verbose_name_plural = _("audit log")

    def __str__(self):
        return f"{self.moderator} {self.action} {self.target}"


class Report(models.Model):
    class Status(models.TextChoices):
        OPEN = "open", pgettext_lazy("report", "Open")
        RESOLVED = "resolved", _("Resolved")

    reporter = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="reports_made"
    )
    game = models.ForeignKey(
        "games.Game", null=True, blank=True, on_delete=models.CASCADE, related_name="reports"
    )
    message = models.ForeignKey(
        "games.ChatMessage",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="reports",
    )
    reason = models.TextField(max_length=REASON_MAX)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    created_at = models.DateTimeField(auto_now_add=True)
    resolved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="reports_resolved",
    )
    resolved_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["status", "-created_at"]
        indexes = [
            # the console's queue: the open reports, oldest first, however many are closed
            models.Index(
                fields=["created_at", "id"],
                condition=models.Q(status="open"),
                name="report_open_idx",
            )
        ]
        permissions = [("resolve_report", "Can close a report")]

    def __str__(self):
        what = f"message {self.message_id}" if self.message_id else f"game {self.game_id}"
        return f"report on {what} by {self.reporter}"
