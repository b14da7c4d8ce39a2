"""Each seat's ``ended_at`` and each player's ``PlayerRecord``: the column and the table
only, in one short transaction. Games 0013 fills them and builds the lists' indexes.
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0011_game_next_due_and_analysis_queue"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="seat",
            name="ended_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.CreateModel(
            name="PlayerRecord",
            fields=[
                (
                    "user",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        primary_key=True,
                        related_name="game_record",
                        serialize=False,
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                ("played", models.PositiveIntegerField(db_default=0, default=0)),
                ("won", models.PositiveIntegerField(db_default=0, default=0)),
                ("lost", models.PositiveIntegerField(db_default=0, default=0)),
                ("drawn", models.PositiveIntegerField(db_default=0, default=0)),
            ],
        ),
    ]
