"""Guest accounts: ``User.guest_until``, when a visitor's account that plays the computer
without signing up is deleted, and a partial index on it, so that the expiry job reads
only the guests whose time has come.

A nullable column is safe while the previous release runs (it neither reads nor writes
it). On PostgreSQL the index is built CONCURRENTLY (outside a transaction), so sign-ups
and log-ins are not held up while it builds; other databases build it as usual.
"""

from django.db import migrations, models

from shanghaien.lib.migration_operations import AddIndexConcurrentlyOnPostgreSQL


class Migration(migrations.Migration):
    atomic = False  # CREATE INDEX CONCURRENTLY cannot run inside a transaction

    dependencies = [
        ("accounts", "0017_notification_choices_only"),
    ]

    operations = [
        migrations.AddField(
            model_name="user",
            name="guest_until",
            field=models.DateTimeField(
                blank=True,
                editable=False,
                help_text="a guest's account, deleted at this moment unless used again",
                null=True,
                verbose_name="guest until",
            ),
        ),
        AddIndexConcurrentlyOnPostgreSQL(
            model_name="user",
            index=models.Index(
                condition=models.Q(("guest_until__isnull", False)),
                fields=["guest_until"],
                name="user_guest_until_idx",
            ),
        ),
    ]
