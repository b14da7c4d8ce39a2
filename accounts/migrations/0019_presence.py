"""Presence: ``User.last_seen_at``, when the player was last on the site, and
``User.show_presence``, whether others may see it and whether they are online now.

Both are safe while the previous release runs: a nullable column, and a boolean with a
database default (PostgreSQL adds it without rewriting the table), which that release
neither reads nor writes.
"""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0018_user_guest_until"),
    ]

    operations = [
        migrations.AddField(
            model_name="user",
            name="last_seen_at",
            field=models.DateTimeField(
                blank=True, editable=False, null=True, verbose_name="last seen"
            ),
        ),
        migrations.AddField(
            model_name="user",
            name="show_presence",
            field=models.BooleanField(
                db_default=True,
                default=True,
                help_text="Others see whether you are online now, and when you were last seen.",
                verbose_name="show when I am online",
            ),
        ),
    ]
