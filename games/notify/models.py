"""The slice's tables: the outbox (``Notification``), and the players' notification
choices as the admin edits them (``NotificationPreferences``, the accounts' own table
seen through the kinds of ``kinds``: no table of its own).

Imported by ``games.models``, so these are the games app's models.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from accounts.models import User

from . import kinds


class Notification(models.Model):
    """An email or a push notification to send: an outbox row written in the same
    transaction as its cause.

    ``key`` makes each notification unique (one email per game and turn, one digest a
    day…; one push per device and turn), so running the jobs twice, or on two workers at
    once, never sends one twice. A push row names its device (``subscription``); it
    loses it when the device is removed, and is then skipped.

    A row is pending while ``sent_at`` is empty. Despite its name, ``sent_at`` is when the
    row was *done with*: sent, skipped, or given up after its last failed attempt; the
    name stays so that a worker of the previous release, still running while a new one
    is deployed, keeps leaving done rows alone. ``outcome`` says which of the three.
    """

    class Channel(models.TextChoices):
        EMAIL = "email", _("email")
        PUSH = "push", _("push notification")

    class Outcome(models.TextChoices):
        SENT = "sent", pgettext_lazy("email", "Sent")
        SKIPPED = "skipped", _("skipped (no longer relevant)")
        FAILED = "failed", _("failed (gave up after the last attempt)")

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notifications"
    )
    game = models.ForeignKey(
        "games.Game", null=True, blank=True, on_delete=models.CASCADE, related_name="notifications"
    )
    kind = models.CharField(max_length=kinds.KIND_MAX, choices=kinds.choices)
    key = models.CharField(max_length=80)
    channel = models.CharField(
        max_length=8, choices=Channel.choices, default=Channel.EMAIL, db_default=Channel.EMAIL
    )
    subscription = models.ForeignKey(
        "accounts.PushSubscription",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="notifications",
        help_text=_("the device a push notification is for"),
    )
    created_at = models.DateTimeField(auto_now_add=True)
    sent_at = models.DateTimeField(
        _("done at"),
        null=True,
        blank=True,
        help_text=_("when it was sent, skipped or given up; empty while it waits to be sent"),
    )
    outcome = models.CharField(
        max_length=20, blank=True, choices=Outcome.choices, help_text=_("empty while pending")
    )
    # The database defaults let the previous release, still running during a deploy,
    # insert rows without knowing these columns.
    detail = models.CharField(
        max_length=200,
        blank=True,
        default="",
        db_default="",
        help_text=_("why it was skipped, or the last send error"),
    )
    attempts = models.PositiveSmallIntegerField(
        default=0, db_default=0, help_text=_("tries to send it")
    )
    next_attempt_at = models.DateTimeField(
        null=True, blank=True, help_text=_("after a failed try: not before this")
    )
    address = models.EmailField(
        blank=True, default="", db_default="", help_text=_("the address it was last sent to")
    )

    class Meta:
        ordering = ["created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["user", "kind", "key"],
                condition=models.Q(channel="email"),
                name="email_once",
            ),
            models.UniqueConstraint(
                fields=["subscription", "kind", "key"],
                condition=models.Q(channel="push"),
                name="push_once",
            ),
        ]
        indexes = [models.Index(fields=["sent_at"])]

    def __str__(self):
        return f"{self.kind} {self.channel} for {self.user} ({self.key})"


class NotificationPreferences(User):
    """A player seen for their notification choices only: the admin's page of them,
    whose boxes come from ``kinds`` (``admin``)."""

    class Meta:
        proxy = True
        verbose_name = _("notification preferences")
        verbose_name_plural = _("notification preferences")
