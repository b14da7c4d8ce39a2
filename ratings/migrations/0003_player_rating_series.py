"""Each player's downsampled rating history (``PlayerRating.series``), built from their
rating changes: one ordered pass over the changes, one player after another, written
back in batches (20,000 players, 400,000 changes: seconds). The series is computed in
Python because its downsampling (``ratings.chart.extend_series``) is what the write path
does after each game, and both must agree point for point."""

from django.db import migrations, models

from ratings.chart import extend_series

BATCH = 1000


def fill_series(apps, schema_editor):
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
    dependencies = [
        ("ratings", "0002_rating_change_opponent"),
    ]

    operations = [
        migrations.AddField(
            model_name="playerrating",
            name="series",
            field=models.JSONField(blank=True, null=True),
        ),
        migrations.RunPython(fill_series, migrations.RunPython.noop, elidable=True),
    ]
