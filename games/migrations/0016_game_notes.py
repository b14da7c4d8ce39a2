"""Players' private notes on games (``GameNote``, a new table), and the partial index
``game_waiting_idx`` on the active games by (player to move, turn began, id): the header's
count of the games waiting for a player and its "next game", the one waiting longest,
are read from it on every page.

The new table is unknown to the release still serving, which neither reads nor writes
it. On PostgreSQL the index is built CONCURRENTLY (outside a transaction), so moves are
not held up while it builds; other databases build it as usual.
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

from shanghaien.lib.migration_operations import AddIndexConcurrentlyOnPostgreSQL


class Migration(migrations.Migration):
    atomic = False  # CREATE INDEX CONCURRENTLY cannot run inside a transaction

    dependencies = [
        ("games", "0015_notify_slice"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="GameNote",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("text", models.TextField(max_length=2000)),
                ("updated_at", models.DateTimeField()),
                (
                    "author",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "game",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="games.game",
                    ),
                ),
            ],
            options={
                "constraints": [
                    models.UniqueConstraint(fields=("game", "author"), name="one_note_per_author")
                ],
            },
        ),
        AddIndexConcurrentlyOnPostgreSQL(
            model_name="game",
            index=models.Index(
                condition=models.Q(("status", "active")),
                fields=["to_move", "turn_started_at", "id"],
                name="game_waiting_idx",
            ),
        ),
    ]
