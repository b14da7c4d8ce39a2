"""An index on UPPER(username), which ``username__iexact`` compiles to on PostgreSQL:
profiles, log-ins, invitations and blocks find a player without reading every account.

Adding an index is safe while the previous release runs. On PostgreSQL it is built
CONCURRENTLY (outside a transaction), so sign-ups and log-ins are not held up while it
builds; other databases build it as usual.
"""

import django.db.models.functions.text
from django.db import migrations, models

from shanghaien.lib.migration_operations import AddIndexConcurrentlyOnPostgreSQL


class Migration(migrations.Migration):
    atomic = False  # CREATE INDEX CONCURRENTLY cannot run inside a transaction

    dependencies = [
        ("accounts", "0013_user_digest_due"),
    ]

    operations = [
        AddIndexConcurrentlyOnPostgreSQL(
            model_name="user",
            index=models.Index(
                django.db.models.functions.text.Upper("username"),
                name="user_username_upper_idx",
            ),
        ),
    ]
