"""The nine notification preference columns leave the model: ``notification_choices``
(games.notify.preferences) is the only place of the choices from this release on.

Their columns stay one release more, for the release still serving while this one is
deployed, which reads and writes them (docs/operations.md, "Upgrading"): this migration
only gives each a default in the database (the one Python gave it), so that this
release's inserts, which no longer name them, pass. The next release drops them, as the
marked second step of this change.

The digest's partial index follows the choice (first, while the model still has the
column its old condition names, so that the migration also runs backwards): a player has a due time
(``digest_due_at``) exactly while they choose the digest, so the index now covers the
players with one; the old release's query (the digest chosen, due by now) still reads it.
"""

from django.db import migrations, models

DEFAULTS = {  # each column's default for a new account, as the model had it
    "email_on_turn": True,
    "email_invitations": True,
    "daily_digest": False,
    "email_reminders": True,
    "email_timeouts": True,
    "push_on_turn": True,
    "push_invitations": True,
    "push_reminders": True,
    "push_timeouts": True,
}


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0016_copy_notification_choices"),
    ]

    operations = [
        migrations.RemoveIndex(model_name="user", name="user_digest_due_idx"),
        migrations.AddIndex(
            model_name="user",
            index=models.Index(
                condition=models.Q(("digest_due_at__isnull", False)),
                fields=["digest_due_at"],
                name="user_digest_due_idx",
            ),
        ),
        migrations.SeparateDatabaseAndState(
            database_operations=[
                migrations.AlterField(
                    model_name="user",
                    name=name,
                    field=models.BooleanField(default=default, db_default=default),
                )
                for name, default in DEFAULTS.items()
            ],
            state_operations=[
                migrations.RemoveField(model_name="user", name=name) for name in DEFAULTS
            ],
        ),
    ]
