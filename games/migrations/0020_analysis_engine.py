"""Each analysis names the level whose judgement it holds; the rows from before are the
captain's (the column's database default, which also serves the release still running)."""

from django.db import migrations, models

import games.models


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0019_time_bank"),
    ]

    operations = [
        migrations.AddField(
            model_name="gameanalysis",
            name="engine",
            field=models.CharField(
                db_default="captain", default=games.models.analysis_engine, max_length=20
            ),
        ),
    ]
