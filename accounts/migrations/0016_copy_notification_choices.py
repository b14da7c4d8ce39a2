"""Every player's nine notification preferences, copied as they are into
``notification_choices`` under the same names (the form fields of games.notify.kinds):
nothing a player chose changes, and every choice is stored, so that a later change of a
kind's default leaves existing players' choices as they were.

One UPDATE per distinct combination of the nine (at most 512, a handful in practice),
each statement on its own (``atomic = False``: docs/operations.md, "What the timed jobs
read"). Run again, it writes the same.
"""

from django.db import migrations

# The nine columns as this migration found them (a migration keeps its own copy).
COLUMNS = (
    "email_on_turn",
    "email_invitations",
    "daily_digest",
    "email_reminders",
    "email_timeouts",
    "push_on_turn",
    "push_invitations",
    "push_reminders",
    "push_timeouts",
)


def copy_choices(apps, schema_editor):
    User = apps.get_model("accounts", "User")
    users = User.objects.using(schema_editor.connection.alias)
    for combination in users.values(*COLUMNS).distinct().order_by():
        choices = {name: bool(combination[name]) for name in COLUMNS}
        users.filter(**combination).update(notification_choices=choices)


def copy_back(apps, schema_editor):
    User = apps.get_model("accounts", "User")
    users = User.objects.using(schema_editor.connection.alias)
    for user in users.exclude(notification_choices={}).iterator():
        for name in COLUMNS:
            if name in user.notification_choices:
                setattr(user, name, bool(user.notification_choices[name]))
        user.save(update_fields=COLUMNS)


class Migration(migrations.Migration):
    atomic = False

    dependencies = [
        ("accounts", "0015_user_notification_choices"),
    ]

    operations = [
        migrations.RunPython(copy_choices, copy_back),
    ]
