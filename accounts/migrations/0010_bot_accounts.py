"""The computer opponents' accounts, one per level (games.bots): named after the level,
with "-bot" added where a player already has that name; no password, no address."""

from django.db import migrations
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
    # Apart from the field's migration: on PostgreSQL, deleting these rows and then
    # altering the table in one transaction is refused (pending trigger events).
    dependencies = [
        ("accounts", "0009_user_bot_level"),
    ]

    operations = [
        migrations.RunPython(create_bots, remove_bots),
    ]
