"""The admiral joins the computer opponents' levels (games.bots.LEVELS)."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0022_token_scopes_and_bot_accounts"),
    ]

    operations = [
        migrations.AlterField(
            model_name="user",
            name="bot_level",
            field=models.CharField(
                blank=True,
                choices=[
                    ("deckhand", "Deckhand"),
                    ("boatswain", "Boatswain"),
                    ("captain", "Captain"),
                    ("admiral", "Admiral"),
                ],
                default="",
                editable=False,
                max_length=16,
                verbose_name="computer opponent",
            ),
        ),
    ]
