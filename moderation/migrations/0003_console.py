"""The moderators' console: a partial index on the open reports (its queue, oldest
first, stays a short read however many reports are closed) and one on the audit log's
target (a player's moderation history, counted for each report shown).

On PostgreSQL both are built CONCURRENTLY (outside a transaction), so that reports and
moderators' actions are not held up while they build; other databases build them as
usual.
"""

from django.db import migrations, models

from shanghaien.lib.migration_operations import AddIndexConcurrentlyOnPostgreSQL


class Migration(migrations.Migration):
    atomic = False  # CREATE INDEX CONCURRENTLY cannot run inside a transaction

    dependencies = [
        ("moderation", "0002_translatable_labels"),
    ]

    operations = [
        AddIndexConcurrentlyOnPostgreSQL(
            model_name="auditentry",
            index=models.Index(
                fields=["target_type", "target_id", "action"], name="audit_target_idx"
            ),
        ),
        AddIndexConcurrentlyOnPostgreSQL(
            model_name="report",
            index=models.Index(
                condition=models.Q(("status", "open")),
                fields=["created_at", "id"],
                name="report_open_idx",
            ),
        ),
    ]
