"""Each seat's ``ended_at`` and each player's ``PlayerRecord``, filled from the games in
one statement each (set-based: seconds on 200,000 finished games), then the indexes the
players' lists read by (built after the fill, which is faster than keeping them during it).

A game the previous release ends after the fill, while the new release is not yet
serving, keeps no ``ended_at`` on its seats and is not counted in the records until the
new release's worker starts and mends it (``games/services/upgrades.py``); meanwhile the
lobby shows a game only while its status says it is under way.
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

FILL_ENDED = """
UPDATE games_seat
SET ended_at = COALESCE(g.finished_at, g.last_move_at, g.created_at)
FROM games_game AS g
WHERE g.id = games_seat.game_id AND g.status <> 'active' AND games_seat.ended_at IS NULL
"""

FILL_RECORDS = """
INSERT INTO games_playerrecord (user_id, played, won, lost, drawn)
SELECT s.user_id,
       COUNT(*),
       SUM(CASE WHEN g.winner_id = s.user_id THEN 1 ELSE 0 END),
       SUM(CASE WHEN g.winner_id <> s.user_id THEN 1 ELSE 0 END),
       SUM(CASE WHEN g.winner_id IS NULL THEN 1 ELSE 0 END)
FROM games_seat AS s JOIN games_game AS g ON g.id = s.game_id
WHERE g.status = 'finished'
GROUP BY s.user_id
"""


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
        migrations.RunSQL(FILL_ENDED, migrations.RunSQL.noop, elidable=True),
        migrations.RunSQL(FILL_RECORDS, migrations.RunSQL.noop, elidable=True),
        migrations.AddIndex(
            model_name="seat",
            index=models.Index(
                condition=models.Q(("ended_at__isnull", False)),
                fields=["user", "-ended_at", "-game"],
                name="seat_ended_idx",
            ),
        ),
        migrations.AddIndex(
            model_name="seat",
            index=models.Index(
                condition=models.Q(("ended_at__isnull", True)),
                fields=["user"],
                name="seat_active_idx",
            ),
        ),
    ]
