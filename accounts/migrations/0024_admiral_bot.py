"""The admiral's account, made as migration 0010 made the other levels': named after the
level, with "-bot" added where a player already has that name; no password, no address.
Undone, it removes that account only."""

from django.db import migrations
from django.db.models.functions import Lower

LEVEL = "admiral"


def create_admiral(apps, schema_editor):
    User = apps.get_model("accounts", "User")
    if User.objects.filter(bot_level=LEVEL).exists():
        return
    name = LEVEL.capitalize()
    taken = User.objects.annotate(lower=Lower("username"))
    while taken.filter(lower=name.lower()).exists():
        name += "-bot"
    bot = User(username=name, bot_level=LEVEL, email="")
    bot.password = "!"  # unusable: no password logs in
    bot.save()


def remove_admiral(apps, schema_editor):
    apps.get_model("accounts", "User").objects.filter(bot_level=LEVEL).delete()


class Migration(migrations.Migration):
    # Apart from the field's migration, as 0010 is from 0009: on PostgreSQL, deleting
    # these rows and then altering the table in one transaction is refused.
    dependencies = [
        ("accounts", "0023_user_bot_level_admiral"),
    ]

    operations = [
        migrations.RunPython(create_admiral, remove_admiral),
    ]
