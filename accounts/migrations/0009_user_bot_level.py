"""The field that marks a computer opponent's account (games.bots): its level."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0008_notifications_on_by_default"),
    ]

    operations = [
        migrations.AddField(
            model_name="user",
            name="bot_level",
            field=models.CharField(
                blank=True,
                choices=[
                    ("deckhand", "Deckhand"),
                    ("boatswain", "Boatswain"),
                    ("captain", "Captain"),
                ],
                default="",
                editable=False,
                max_length=16,
                verbose_name="computer opponent",
            ),
        ),
    ]
