"""Fills each player's downsampled rating history (``PlayerRating.series``), built from their
rating changes as ``ratings.chart.extend_series`` would have built it game by game.

On PostgreSQL in one statement (window functions: 400,000 changes of 20,000 players in
seconds): the series after ``m`` games keeps the ratings at every ``step``-th game, where
``step`` is the smallest power of two with ``m < 2 * SERIES_POINTS * step``, and the
latest. Elsewhere (SQLite, development) one ordered pass in Python.

Each statement on its own (``atomic = False``), and on PostgreSQL a thousand players a
statement: in the transaction that added the column, the ratings table would stay
locked against every reader (the ranking, the profiles) until the fill ended, and one
statement for everyone would hold every player's rating row while the previous release,
still serving, rates the games that end meanwhile. Run again, it builds the same series.
"""

from django.db import migrations

from ratings.chart import SERIES_POINTS, extend_series

FILL_SERIES = f"""
WITH steps AS (
    SELECT user_id, m,
           (SELECT min(p) FROM (SELECT (2::bigint ^ e)::bigint AS p
                                FROM generate_series(0, 40) AS e) AS powers
            WHERE m < {2 * SERIES_POINTS} * p) AS step
    FROM (SELECT user_id, count(*) AS m FROM ratings_ratingchange
          WHERE user_id BETWEEN %(low)s AND %(high)s GROUP BY user_id) AS counts
),
ranked AS (
    SELECT user_id, rating_before, rating_after,
           row_number() OVER (PARTITION BY user_id ORDER BY created_at, id) AS k
    FROM ratings_ratingchange
    WHERE user_id BETWEEN %(low)s AND %(high)s
),
points AS (
    SELECT user_id, 0 AS k, rating_before AS rating FROM ranked WHERE k = 1
    UNION ALL
    SELECT ranked.user_id, k, rating_after
    FROM ranked JOIN steps ON steps.user_id = ranked.user_id
    WHERE k %% step = 0 OR k = m
),
series AS (
    SELECT steps.user_id,
           jsonb_build_object('step', step, 'count', m + 1, 'points', points) AS series
    FROM steps JOIN (
        SELECT user_id, jsonb_agg(round(rating::numeric, 1) ORDER BY k) AS points
        FROM points GROUP BY user_id
    ) AS kept ON kept.user_id = steps.user_id
)
UPDATE ratings_playerrating SET series = series.series FROM series
WHERE ratings_playerrating.user_id = series.user_id
"""

BATCH = 1000


def fill_series(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        PlayerRating = apps.get_model("ratings", "PlayerRating")
        users = list(PlayerRating.objects.order_by("user_id").values_list("user_id", flat=True))
        with schema_editor.connection.cursor() as cursor:
            for first in range(0, len(users), BATCH):
                chunk = users[first : first + BATCH]
                cursor.execute(FILL_SERIES, {"low": chunk[0], "high": chunk[-1]})
        return
    PlayerRating = apps.get_model("ratings", "PlayerRating")
    RatingChange = apps.get_model("ratings", "RatingChange")
    ids = dict(PlayerRating.objects.values_list("user_id", "pk"))
    changes = (
        RatingChange.objects.order_by("user_id", "created_at", "id")
        .values_list("user_id", "rating_before", "rating_after")
        .iterator(chunk_size=5000)
    )
    done, user, series = [], None, None

    def keep():
        if user in ids:
            done.append(PlayerRating(pk=ids[user], series=series))
        if len(done) >= BATCH:
            PlayerRating.objects.bulk_update(done, ["series"])
            done.clear()

    for user_id, before, after in changes:
        if user_id != user:
            if user is not None:
                keep()
            user, series = user_id, None
        series = extend_series(series, after, start=before)
    if user is not None:
        keep()
    if done:
        PlayerRating.objects.bulk_update(done, ["series"])


class Migration(migrations.Migration):
    atomic = False  # a statement at a time: see above

    dependencies = [
        ("ratings", "0003_player_rating_series"),
    ]

    operations = [
        migrations.RunPython(fill_series, migrations.RunPython.noop, elidable=True),
    ]
