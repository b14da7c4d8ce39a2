"""Emails become unique whatever their case, and allauth learns each account's address.

Where several accounts share an address (compared ignoring case), the account that
logged in last keeps it (never logged in: the oldest account); the others lose it and
are asked for an address of their own by the banner on their lobby and profile. Each
account changed is logged (logger ``accounts.migrations``, WARNING) with the address it
lost, so an admin can tell its owner. Every address kept becomes allauth's primary
address of its account, not yet confirmed: no email of ours goes to it until its owner
follows the confirmation link (the banner sends one).
"""

import logging
from collections import defaultdict

from django.db import migrations, models
from django.db.models.functions import Lower

log = logging.getLogger("accounts.migrations")


def _last_in_use(user):
    # Sort key: the latest login first, accounts that never logged in after, oldest first.
    seen = user.last_login.timestamp() if user.last_login else 0
    return (user.last_login is None, -seen, user.date_joined, user.pk)


def resolve_shared_emails(apps, schema_editor):
    User = apps.get_model("accounts", "User")
    sharing = defaultdict(list)
    for user in User.objects.exclude(email=""):
        sharing[user.email.strip().lower()].append(user)
    for address, users in sharing.items():
        if len(users) < 2:
            continue
        keeper, *others = sorted(users, key=_last_in_use)
        for user in others:
            log.warning(
                "account %s (id %s) lost the address %s, which account %s (id %s) keeps",
                user.username,
                user.pk,
                address,
                keeper.username,
                keeper.pk,
            )
        User.objects.filter(pk__in=[user.pk for user in others]).update(email="")


def register_addresses(apps, schema_editor):
    User = apps.get_model("accounts", "User")
    EmailAddress = apps.get_model("account", "EmailAddress")
    known = set(EmailAddress.objects.values_list("user_id", flat=True))
    EmailAddress.objects.bulk_create(
        EmailAddress(user_id=pk, email=email.strip().lower(), verified=False, primary=True)
        for pk, email in User.objects.exclude(email="").values_list("pk", "email")
        if pk not in known
    )


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0005_translatable_labels"),
        ("account", "0009_emailaddress_unique_primary_email"),
    ]

    operations = [
        migrations.AddField(
            model_name="user",
            name="suspension_reason",
            field=models.TextField(
                blank=True,
                help_text="shown to the player when they try to log in",
                verbose_name="reason for the suspension",
            ),
        ),
        migrations.RunPython(resolve_shared_emails, migrations.RunPython.noop),
        migrations.RunPython(register_addresses, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="user",
            constraint=models.UniqueConstraint(
                Lower("email"),
                condition=~models.Q(email=""),
                name="email_unique_ignoring_case",
            ),
        ),
    ]
