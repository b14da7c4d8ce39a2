"""Turn and invitation emails on for new players, each with its own preference.

``email_on_turn`` used to govern the invitation emails too: an existing player's new
``email_invitations`` starts as their ``email_on_turn``, which stays as it was. Only new
accounts get the new default (on) of both.
"""

from django.db import migrations, models


def invitations_as_turn_emails(apps, schema_editor):
    User = apps.get_model("accounts", "User")
    User.objects.update(email_invitations=models.F("email_on_turn"))


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0007_language_and_time_zone"),
    ]

    operations = [
        migrations.AlterField(
            model_name="user",
            name="email_on_turn",
            field=models.BooleanField(
                default=True,
                help_text="At most one email per game and turn.",
                verbose_name="email me when it is my turn",
            ),
        ),
        migrations.AddField(
            model_name="user",
            name="email_invitations",
            field=models.BooleanField(
                default=True,
                help_text="One email per invitation to a game.",
                verbose_name="email me when I am invited",
            ),
        ),
        # Data last, after the schema changes (PostgreSQL: no ALTER after an UPDATE in
        # one transaction). Backwards the column goes, and the choice with it.
        migrations.RunPython(invitations_as_turn_emails, migrations.RunPython.noop),
    ]
