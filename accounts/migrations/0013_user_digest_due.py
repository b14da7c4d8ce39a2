"""When each player's daily digest is next due (``User.digest_due_at``), on a partial
index of the players who chose the digest: the worker reads only the due ones.

The backfill gives every player who chose the digest the next ``DIGEST_HOUR`` of their
time zone: one UPDATE per time zone among them (a few hundred at most).
"""

import zoneinfo
from datetime import UTC, datetime, time, timedelta

from django.db import migrations, models
from django.utils import timezone

# accounts.models.DIGEST_HOUR when this was written (a migration keeps its own copy).
DIGEST_HOUR = time(7, 0)


def _zone(name):
    try:
        return zoneinfo.ZoneInfo(name or "UTC")
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return zoneinfo.ZoneInfo("UTC")


def _next(zone, now):
    local = now.astimezone(zone)
    moment = datetime.combine(local.date(), DIGEST_HOUR, tzinfo=zone)
    if moment.astimezone(UTC) <= now:
        moment = datetime.combine(local.date() + timedelta(days=1), DIGEST_HOUR, tzinfo=zone)
    return moment.astimezone(UTC)


def digest_times(apps, schema_editor):
    User = apps.get_model("accounts", "User")
    users = User.objects.using(schema_editor.connection.alias).filter(daily_digest=True)
    now = timezone.now()
    for name in users.values_list("time_zone", flat=True).distinct().order_by():
        users.filter(time_zone=name).update(digest_due_at=_next(_zone(name), now))


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0012_user_bots_index"),
    ]

    operations = [
        migrations.AddField(
            model_name="user",
            name="digest_due_at",
            field=models.DateTimeField(blank=True, editable=False, null=True),
        ),
        migrations.AddIndex(
            model_name="user",
            index=models.Index(
                condition=models.Q(("daily_digest", True)),
                fields=["digest_due_at"],
                name="user_digest_due_idx",
            ),
        ),
        # The data last: PostgreSQL builds no index on a table with pending FK checks.
        migrations.RunPython(digest_times, migrations.RunPython.noop, elidable=True),
    ]
