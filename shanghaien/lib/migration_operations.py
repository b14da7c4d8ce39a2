"""Migration operations shared by the apps' migrations."""

from django.contrib.postgres.operations import AddIndexConcurrently, RemoveIndexConcurrently
from django.db import migrations


class AddIndexConcurrentlyOnPostgreSQL(AddIndexConcurrently):
    """An index built CONCURRENTLY on PostgreSQL (outside a transaction: the migration
    says ``atomic = False``), so that writes to the table are not held up while it
    builds; other databases build it as usual."""

    def database_forwards(self, app_label, schema_editor, from_state, to_state):
        if schema_editor.connection.vendor == "postgresql":
            return super().database_forwards(app_label, schema_editor, from_state, to_state)
        return migrations.AddIndex.database_forwards(
            self, app_label, schema_editor, from_state, to_state
        )

    def database_backwards(self, app_label, schema_editor, from_state, to_state):
        if schema_editor.connection.vendor == "postgresql":
            return super().database_backwards(app_label, schema_editor, from_state, to_state)
        return migrations.AddIndex.database_backwards(
            self, app_label, schema_editor, from_state, to_state
        )


class RemoveIndexConcurrentlyOnPostgreSQL(RemoveIndexConcurrently):
    """An index dropped CONCURRENTLY on PostgreSQL (outside a transaction: the migration
    says ``atomic = False``), so that the table's readers and writers are not held up;
    other databases drop it as usual."""

    def database_forwards(self, app_label, schema_editor, from_state, to_state):
        if schema_editor.connection.vendor == "postgresql":
            return super().database_forwards(app_label, schema_editor, from_state, to_state)
        return migrations.RemoveIndex.database_forwards(
            self, app_label, schema_editor, from_state, to_state
        )

    def database_backwards(self, app_label, schema_editor, from_state, to_state):
        if schema_editor.connection.vendor == "postgresql":
            return super().database_backwards(app_label, schema_editor, from_state, to_state)
        return migrations.RemoveIndex.database_backwards(
            self, app_label, schema_editor, from_state, to_state
        )
