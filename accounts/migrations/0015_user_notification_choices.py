"""The column of each player's notification choices (``User.notification_choices``),
which the notify slice (games.notify.preferences) reads and writes from its table of
kinds; the next migrations fill it from the nine columns it replaces (``0016``) and leave
those to the release still serving (``0017``).

A column added, nothing else: its own short transaction (docs/operations.md). The
database default ({}: every choice its default) lets the release still serving insert
players without knowing the column.
"""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0014_user_username_upper_index"),
    ]

    operations = [
        migrations.AddField(
            model_name="user",
            name="notification_choices",
            field=models.JSONField(blank=True, db_default={}, default=dict, editable=False),
        ),
    ]
