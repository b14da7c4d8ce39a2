"""An index of the computer opponents' accounts: the few rows with a ``bot_level``.

Adding an index is safe while the previous release runs. On PostgreSQL it is built
CONCURRENTLY (outside a transaction), so sign-ups and log-ins are not held up while it
builds; other databases build it as usual.
"""

from django.db import migrations, models

from shanghaien.lib.migration_operations import AddIndexConcurrentlyOnPostgreSQL


class Migration(migrations.Migration):
    atomic = False  # CREATE INDEX CONCURRENTLY cannot run inside a transaction

    dependencies = [
        ("accounts", "0011_push_subscriptions_and_channels"),
    ]

    operations = [
        AddIndexConcurrentlyOnPostgreSQL(
            model_name="user",
            index=models.Index(
                condition=models.Q(("bot_level__gt", "")),
                fields=["bot_level"],
                name="user_bots_idx",
            ),
        ),
    ]
