"""The backfills of games 0011 and 0012, and the indexes the players' lists read by.

Each statement on its own (``atomic = False``): in one transaction with the new columns,
PostgreSQL would hold the tables those columns were added to (games, seats) locked
against every reader until the last backfill ended, tens of seconds on a site with
200,000 finished games, while the previous release still serves. Every step can be run
again: each fills only what is still empty, and the records are written in one
statement. Set-based: one statement a table, seconds on 200,000 finished games.

- ``Game.due_at`` of the active games with a clock and a person to move (a few thousand
  at most, one pass over the active games only); the mover's holidays are left out,
  which can only make it early: the job folds them in when it first looks.
- The analysis queue: the game's end copied onto the existing analyses, and every
  finished game without an analysis queued, as the worker did before (newest first).
- Each ended game's seats get ``ended_at``, each player with a finished game a
  ``PlayerRecord``; then the lists' indexes, after the fill (faster than keeping them
  during it), built CONCURRENTLY on PostgreSQL so that new games are not held up.

A game the previous release ends after the fill, while the new release is not yet
serving, keeps no ``ended_at`` on its seats and is not counted in the records until the
new release's worker starts and mends it (``games/services/upgrades.py``); meanwhile the
lobby shows a game only while its status says it is under way.
"""

from datetime import timedelta

from django.db import migrations, models
from django.utils import timezone

from shanghaien.lib.migration_operations import AddIndexConcurrentlyOnPostgreSQL

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
ON CONFLICT (user_id) DO NOTHING
"""


class Migration(migrations.Migration):
    atomic = False  # each step on its own: see above

    dependencies = [
        ("games", "0012_seat_ended_and_records"),
    ]

    operations = [
        migrations.RunPython(due_times, migrations.RunPython.noop, elidable=True),
        migrations.RunSQL(COPY_FINISH, migrations.RunSQL.noop, elidable=True),
        migrations.RunSQL(QUEUE_FINISHED_GAMES, migrations.RunSQL.noop, elidable=True),
        migrations.RunSQL(FILL_ENDED, migrations.RunSQL.noop, elidable=True),
        migrations.RunSQL(FILL_RECORDS, migrations.RunSQL.noop, elidable=True),
        AddIndexConcurrentlyOnPostgreSQL(
            model_name="seat",
            index=models.Index(
                condition=models.Q(("ended_at__isnull", False)),
                fields=["user", "-ended_at", "-game"],
                name="seat_ended_idx",
            ),
        ),
        AddIndexConcurrentlyOnPostgreSQL(
            model_name="seat",
            index=models.Index(
                condition=models.Q(("ended_at__isnull", True)),
                fields=["user"],
                name="seat_active_idx",
            ),
        ),
    ]
