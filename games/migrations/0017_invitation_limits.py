"""Open invitations that fit: an open invitation's limits on who may accept it (a rating
range, a pace), each player's pace kept as their games end, and a partial index for the
lobby's page of open invitations, newest first.

Nullable columns are safe while the previous release runs (it neither reads nor writes
them). On PostgreSQL the index is built CONCURRENTLY (outside a transaction), so
invitations are not held up while it builds; other databases build it as usual. Players'
paces start empty and fill as their next games end.
"""

from django.db import migrations, models

from shanghaien.lib.migration_operations import AddIndexConcurrentlyOnPostgreSQL


class Migration(migrations.Migration):
    atomic = False  # CREATE INDEX CONCURRENTLY cannot run inside a transaction

    dependencies = [
        ("games", "0016_game_notes"),
    ]

    operations = [
        migrations.AddField(
            model_name="invitation",
            name="max_pace",
            field=models.PositiveSmallIntegerField(
                blank=True, help_text="days per move at most, on average", null=True
            ),
        ),
        migrations.AddField(
            model_name="invitation",
            name="max_rating",
            field=models.PositiveSmallIntegerField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="invitation",
            name="min_rating",
            field=models.PositiveSmallIntegerField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="playerrecord",
            name="pace",
            field=models.FloatField(
                blank=True, help_text="seconds per move, on average", null=True
            ),
        ),
        migrations.AddField(
            model_name="playerrecord",
            name="recent_turns",
            field=models.JSONField(blank=True, null=True),
        ),
        AddIndexConcurrentlyOnPostgreSQL(
            model_name="invitation",
            index=models.Index(
                condition=models.Q(("status", "open"), ("to_user__isnull", True)),
                fields=["-created_at"],
                name="invitation_open_idx",
            ),
        ),
    ]
