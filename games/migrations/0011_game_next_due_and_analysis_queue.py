"""The deadline job's stored "next due" time of each game, and the analysis queue.

``Game.due_at``: when the deadline job must next look at an active game (its reminder
moment, then its deadline), read on the partial index ``game_due_idx``. The backfill
sets it for the active games with a clock and a person to move (a few thousand at most,
one pass over the active games only); the mover's holidays are left out, which can only
make it early: the job folds them in when it first looks.

``GameAnalysis.finished_at`` and the partial index ``analysis_queue_idx`` of the pending
rows: the worker takes the newest pending analysis from that index instead of scanning
the finished games for one without an analysis. The backfill queues every finished game
that has no analysis yet, as the worker did before (newest first, all of them, in one
INSERT … SELECT), and copies the game's end onto the existing rows (one UPDATE).
"""

from datetime import timedelta

from django.db import migrations, models
from django.utils import timezone

BATCH = 1000


def due_times(apps, schema_editor):
    Game = apps.get_model("games", "Game")
    now = timezone.now()
    games = (
        Game.objects.using(schema_editor.connection.alias)
        .filter(status="active", deadline__isnull=False, to_move__isnull=False)
        .exclude(to_move__bot_level__gt="")  # a computer opponent never times out
        .only("pk", "deadline", "days_per_move")
    )
    batch = []
    for game in games.iterator(chunk_size=BATCH):
        remind = game.deadline - timedelta(days=game.days_per_move) / 5
        game.due_at = remind if now < remind else game.deadline
        batch.append(game)
        if len(batch) >= BATCH:
            Game.objects.bulk_update(batch, ["due_at"])
            batch = []
    Game.objects.bulk_update(batch, ["due_at"])


QUEUE_FINISHED_GAMES = """
INSERT INTO games_gameanalysis
    (game_id, status, done, total, decisions, attempts, error, seconds, created_at, finished_at)
SELECT g.id, 'pending', 0, 0, '[]', 0, '', 0.0, CURRENT_TIMESTAMP,
       COALESCE(g.finished_at, g.last_move_at, g.created_at)
FROM games_game g
WHERE g.status = 'finished'
  AND NOT EXISTS (SELECT 1 FROM games_gameanalysis a WHERE a.game_id = g.id)
"""

COPY_FINISH = """
UPDATE games_gameanalysis
SET finished_at = (
    SELECT COALESCE(g.finished_at, g.last_move_at, g.created_at)
    FROM games_game g
    WHERE g.id = games_gameanalysis.game_id
)
WHERE finished_at IS NULL
"""


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0010_provably_fair_seeds"),
        ("accounts", "0012_user_bots_index"),
    ]

    operations = [
        migrations.AddField(
            model_name="game",
            name="due_at",
            field=models.DateTimeField(blank=True, editable=False, null=True),
        ),
        migrations.AddField(
            model_name="gameanalysis",
            name="finished_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddIndex(
            model_name="game",
            index=models.Index(
                condition=models.Q(("due_at__isnull", False), ("status", "active")),
                fields=["due_at"],
                name="game_due_idx",
            ),
        ),
        migrations.AddIndex(
            model_name="gameanalysis",
            index=models.Index(
                fields=["-finished_at", "-game"],
                condition=models.Q(("status", "pending")),
                name="analysis_queue_idx",
            ),
        ),
        # The data last: PostgreSQL builds no index on a table with pending FK checks.
        migrations.RunPython(due_times, migrations.RunPython.noop, elidable=True),
        migrations.RunSQL(COPY_FINISH, migrations.RunSQL.noop, elidable=True),
        migrations.RunSQL(QUEUE_FINISHED_GAMES, migrations.RunSQL.noop, elidable=True),
    ]
