"""Following a player (``Follow``), and the index that finds players by the start of
their name (``accounts.name_search``).

A new table is safe while the previous release runs (it never reads it). The search's
index is PostgreSQL's only: ``(UPPER(username) COLLATE "C")``, a plain btree whose byte
order lets ``LIKE 'PREFIX%'`` read a range of it and return its rows already in the
order the results show, so that a page of 20 reads about 20 entries whatever the
prefix (a ``text_pattern_ops`` index would find the range but not give its order). It
holds no guest (``guest_until`` set), whom no search finds: a prefix of the guests' names
reads none of their many rows. It is
built CONCURRENTLY (outside a transaction), so sign-ups and log-ins are not held up while
it builds. SQLite has no "C" collation; its searches read the table, which only
development and the tests use.
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

INDEX = "user_username_prefix_idx"


def create_prefix_index(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(
            f'CREATE INDEX CONCURRENTLY IF NOT EXISTS "{INDEX}" '
            'ON "accounts_user" ((UPPER("username") COLLATE "C")) WHERE "guest_until" IS NULL'
        )


def drop_prefix_index(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f'DROP INDEX CONCURRENTLY IF EXISTS "{INDEX}"')


class Migration(migrations.Migration):
    atomic = False  # CREATE INDEX CONCURRENTLY cannot run inside a transaction

    dependencies = [
        ("accounts", "0020_notices"),
    ]

    operations = [
        migrations.CreateModel(
            name="Follow",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                (
                    "followed",
                    models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="followers",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "follower",
                    models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="follows",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "indexes": [
                    models.Index(fields=["followed", "follower"], name="follow_followed_idx")
                ],
                "constraints": [
                    models.UniqueConstraint(fields=("follower", "followed"), name="follow_once")
                ],
            },
        ),
        migrations.RunPython(create_prefix_index, drop_prefix_index, elidable=False),
    ]
