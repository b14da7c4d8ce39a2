"""The deadline job's stored "next due" time of each game, and the analysis queue.

The columns and their indexes only, in one short transaction; the backfills follow in
games 0013, each statement on its own, so that no table stays locked while they run.

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

from django.db import migrations, models


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
    ]
