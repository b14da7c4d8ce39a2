"""The computer opponents' accounts, one per level (games.bots): named after the level,
with "-bot" added where a player already has that name; no password, no address."""

from django.db import migrations, models
from django.db.models.functions import Lower

LEVELS = ("deckhand", "boatswain", "captain")


def create_bots(apps, schema_editor):
    User = apps.get_model("accounts", "User")
    for level in LEVELS:
        if User.objects.filter(bot_level=level).exists():
            continue
        name = level.capitalize()
        taken = User.objects.annotate(lower=Lower("username"))
        while taken.filter(lower=name.lower()).exists():
            name += "-bot"
        bot = User(username=name, bot_level=level, email="")
        bot.password = "!"  # unusable: no password logs in
        bot.save()


def remove_bots(apps, schema_editor):
    apps.get_model("accounts", "User").objects.exclude(bot_level="").delete()


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
        migrations.RunPython(create_bots, remove_bots),
    ]
