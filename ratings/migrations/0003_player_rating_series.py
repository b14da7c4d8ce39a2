"""Each player's downsampled rating history, ``PlayerRating.series``: the column only,
in one short transaction; ratings 0004 fills it."""

from django.db import migrations, models


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
    ]
