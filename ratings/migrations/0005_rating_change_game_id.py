"""A rating change names its game by the row's id, without a foreign key to games: the
games app stands above ratings (docs/architecture.md, "Apps and what they may import").

In the database only the foreign key's constraint goes: the column ``game_id``, its
values, its index and the unique (game, user) constraint stay as they are, so the
release still serving, which writes and reads the same column, works throughout. The
rest is the models' description: ``game`` becomes the plain ``game_id``.
"""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0004_rated_games"),
        ("ratings", "0004_fill_rating_series"),
    ]

    operations = [
        # DROP CONSTRAINT of the foreign key on PostgreSQL (SQLite copies the table).
        migrations.AlterField(
            model_name="ratingchange",
            name="game",
            field=models.ForeignKey(
                db_constraint=False,
                on_delete=django.db.models.deletion.DO_NOTHING,
                related_name="+",
                to="games.game",
            ),
        ),
        # The same column, index and constraint under their new description.
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.RemoveConstraint(
                    model_name="ratingchange", name="one_rating_change_per_game"
                ),
                migrations.RemoveField(model_name="ratingchange", name="game"),
                migrations.AddField(
                    model_name="ratingchange",
                    name="game_id",
                    field=models.BigIntegerField(db_index=True),
                    preserve_default=False,
                ),
                migrations.AddConstraint(
                    model_name="ratingchange",
                    constraint=models.UniqueConstraint(
                        fields=("game_id", "user"), name="one_rating_change_per_game"
                    ),
                ),
            ],
        ),
    ]
