"""The players' filtered lists, their records per opponent, variant and month, and the
page of live games.

- Each ended seat gets the columns the list's filters read (``opponent``, ``outcome``,
  ``extra_wild``, ``rated``), copied from its game and the game's other seat; the
  records per opponent, per variant and per month are counted from them; the active
  games between two people who signed up are ``listed`` on the live page.
- Then the indexes, after the fill (faster than keeping them during it), built
  CONCURRENTLY on PostgreSQL so that new games are not held up; the list's old index
  (``seat_ended_idx``, which ``seat_ended_list_idx`` begins with) is dropped last, also
  concurrently: the previous release's list reads the new one as well.

Each statement on its own (``atomic = False``), as in games 0013: in one transaction
with the new columns, PostgreSQL would hold the seats' table locked against every reader
until the fill ended. Set-based, one statement a table: seconds on 200,000 finished
games. Each step can be run again: the seats' fill fills only what is still empty, the
records' ``ON CONFLICT DO NOTHING``.

A game the previous release ends after the seats' fill, while the new release is not yet
serving, keeps empty columns and is counted in no record of this migration's; the new
release's worker fills and counts it when it starts (``games/services/upgrades.py``,
from the partial index ``seat_unfilled_idx``).
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

from shanghaien.lib.migration_operations import (
    AddIndexConcurrentlyOnPostgreSQL,
    RemoveIndexConcurrentlyOnPostgreSQL,
)

FILL_SEATS = """
UPDATE games_seat
SET opponent_id = o.user_id,
    extra_wild = g.extra_wild,
    rated = g.rated,
    outcome = CASE
        WHEN g.status <> 'finished' THEN ''
        WHEN g.winner_id IS NULL THEN 'drawn'
        WHEN g.winner_id = games_seat.user_id THEN 'won'
        ELSE 'lost'
    END
FROM games_game AS g, games_seat AS o
WHERE g.id = games_seat.game_id
  AND o.game_id = games_seat.game_id AND o.seat <> games_seat.seat
  AND games_seat.ended_at IS NOT NULL AND games_seat.outcome IS NULL
"""

COUNTS = """COUNT(*),
       SUM(CASE WHEN outcome = 'won' THEN 1 ELSE 0 END),
       SUM(CASE WHEN outcome = 'lost' THEN 1 ELSE 0 END),
       SUM(CASE WHEN outcome = 'drawn' THEN 1 ELSE 0 END)"""

FILL_OPPONENTS = f"""
INSERT INTO games_opponentrecord (user_id, opponent_id, played, won, lost, drawn)
SELECT user_id, opponent_id, {COUNTS}
FROM games_seat
WHERE ended_at IS NOT NULL AND outcome IN ('won', 'lost', 'drawn')
GROUP BY user_id, opponent_id
ON CONFLICT (user_id, opponent_id) DO NOTHING
"""

FILL_VARIANTS = f"""
INSERT INTO games_variantrecord (user_id, extra_wild, played, won, lost, drawn)
SELECT user_id, extra_wild, {COUNTS}
FROM games_seat
WHERE ended_at IS NOT NULL AND outcome IN ('won', 'lost', 'drawn')
GROUP BY user_id, extra_wild
ON CONFLICT (user_id, extra_wild) DO NOTHING
"""

# The month an ended_at falls in, in UTC, as each database writes it.
MONTH = {
    "postgresql": "(date_trunc('month', ended_at AT TIME ZONE 'UTC'))::date",
    "sqlite": "date(ended_at, 'start of month')",
}

FILL_MONTHS = """
INSERT INTO games_monthrecord (user_id, month, played, won, lost, drawn)
SELECT user_id, {month}, {counts}
FROM games_seat
WHERE ended_at IS NOT NULL AND outcome IN ('won', 'lost', 'drawn')
GROUP BY user_id, {month}
ON CONFLICT (user_id, month) DO NOTHING
"""

FILL_LISTED = """
UPDATE games_game
SET listed = TRUE
WHERE status = 'active' AND last_move_at IS NOT NULL AND NOT listed AND NOT EXISTS (
    SELECT 1 FROM games_seat AS s JOIN accounts_user AS u ON u.id = s.user_id
    WHERE s.game_id = games_game.id AND u.guest_until IS NOT NULL
)
"""


def fill_months(apps, schema_editor):
    connection = schema_editor.connection
    month = MONTH[connection.vendor]
    with connection.cursor() as cursor:
        cursor.execute(FILL_MONTHS.format(month=month, counts=COUNTS))


def tally_model(name, key):
    return migrations.CreateModel(
        name=name,
        fields=[
            (
                "id",
                models.BigAutoField(
                    auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                ),
            ),
            ("played", models.PositiveIntegerField(db_default=0, default=0)),
            ("won", models.PositiveIntegerField(db_default=0, default=0)),
            ("lost", models.PositiveIntegerField(db_default=0, default=0)),
            ("drawn", models.PositiveIntegerField(db_default=0, default=0)),
            (
                "user",
                models.ForeignKey(
                    on_delete=django.db.models.deletion.CASCADE,
                    related_name="+",
                    to=settings.AUTH_USER_MODEL,
                ),
            ),
            key,
        ],
    )


class Migration(migrations.Migration):
    atomic = False  # each step on its own: see above

    dependencies = [
        ("games", "0017_invitation_limits"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        tally_model(
            "OpponentRecord",
            (
                "opponent",
                models.ForeignKey(
                    on_delete=django.db.models.deletion.CASCADE,
                    related_name="+",
                    to=settings.AUTH_USER_MODEL,
                ),
            ),
        ),
        tally_model("VariantRecord", ("extra_wild", models.BooleanField())),
        tally_model("MonthRecord", ("month", models.DateField())),
        migrations.AddConstraint(
            model_name="opponentrecord",
            constraint=models.UniqueConstraint(
                fields=("user", "opponent"), name="opponent_record_unique"
            ),
        ),
        migrations.AddConstraint(
            model_name="variantrecord",
            constraint=models.UniqueConstraint(
                fields=("user", "extra_wild"), name="variant_record_unique"
            ),
        ),
        migrations.AddConstraint(
            model_name="monthrecord",
            constraint=models.UniqueConstraint(
                fields=("user", "month"), name="month_record_unique"
            ),
        ),
        migrations.AddField(
            model_name="game",
            name="listed",
            field=models.BooleanField(db_default=False, default=False),
        ),
        migrations.AddField(
            model_name="seat",
            name="opponent",
            field=models.ForeignKey(
                blank=True,
                db_constraint=False,
                db_index=False,
                null=True,
                on_delete=django.db.models.deletion.DO_NOTHING,
                related_name="+",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.AddField(
            model_name="seat",
            name="outcome",
            field=models.CharField(blank=True, max_length=5, null=True),
        ),
        migrations.AddField(
            model_name="seat",
            name="extra_wild",
            field=models.BooleanField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="seat",
            name="rated",
            field=models.BooleanField(blank=True, null=True),
        ),
        migrations.RunSQL(FILL_SEATS, migrations.RunSQL.noop, elidable=True),
        migrations.RunSQL(FILL_OPPONENTS, migrations.RunSQL.noop, elidable=True),
        migrations.RunSQL(FILL_VARIANTS, migrations.RunSQL.noop, elidable=True),
        migrations.RunPython(fill_months, migrations.RunPython.noop, elidable=True),
        migrations.RunSQL(FILL_LISTED, migrations.RunSQL.noop, elidable=True),
        migrations.AddIndex(
            model_name="opponentrecord",
            index=models.Index(fields=["user", "-played", "opponent"], name="opponent_played_idx"),
        ),
        AddIndexConcurrentlyOnPostgreSQL(
            model_name="game",
            index=models.Index(
                condition=models.Q(("listed", True)),
                fields=["-last_move_at", "-id"],
                name="game_live_idx",
            ),
        ),
        AddIndexConcurrentlyOnPostgreSQL(
            model_name="seat",
            index=models.Index(
                condition=models.Q(("ended_at__isnull", False)),
                fields=["user", "-ended_at", "-game", "outcome", "rated", "extra_wild"],
                name="seat_ended_list_idx",
            ),
        ),
        AddIndexConcurrentlyOnPostgreSQL(
            model_name="seat",
            index=models.Index(
                condition=models.Q(("ended_at__isnull", False)),
                fields=["user", "opponent", "-ended_at", "-game", "outcome", "rated", "extra_wild"],
                name="seat_opponent_idx",
            ),
        ),
        AddIndexConcurrentlyOnPostgreSQL(
            model_name="seat",
            index=models.Index(
                condition=models.Q(("ended_at__isnull", False), ("outcome__isnull", True)),
                fields=["game"],
                name="seat_unfilled_idx",
            ),
        ),
        RemoveIndexConcurrentlyOnPostgreSQL(model_name="seat", name="seat_ended_idx"),
    ]
