"""Each player's next server seed, made and shown before their own seed is sent, and the
scheme of each game's seeds. Rows from before keep the scheme they were made under
(hmac-sha256-v1), as does a row the previous release writes during an upgrade (the
column's database default); new ones are made under hmac-sha256-v2."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0014_user_username_upper_index"),
        ("games", "0013_fill_due_times_queue_seats_and_records"),
    ]

    operations = [
        migrations.CreateModel(
            name="PendingSeed",
            fields=[
                (
                    "user",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        primary_key=True,
                        related_name="pending_seed",
                        serialize=False,
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                ("seed", models.CharField(max_length=64)),
                ("commitment", models.CharField(max_length=64)),
                ("made_at", models.DateTimeField()),
            ],
        ),
        migrations.AddField(
            model_name="game",
            name="fair_scheme",
            field=models.CharField(
                blank=True, db_default="hmac-sha256-v1", default="hmac-sha256-v2", max_length=20
            ),
        ),
        migrations.AddField(
            model_name="invitation",
            name="fair_scheme",
            field=models.CharField(
                blank=True, db_default="hmac-sha256-v1", default="hmac-sha256-v2", max_length=20
            ),
        ),
    ]
