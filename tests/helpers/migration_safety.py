"""Which migrations would break the release that still serves while they run.

An upgrade runs the new release's migrations while the old release still serves
(docs/operations.md, "Upgrading"), so a migration must leave the old code's queries
working. It must not drop or rename a column or a table, and it must not make the old
code's inserts fail: a new NOT NULL column needs a default in the database
(``db_default``; a Python ``default`` is the new code's, the old code's INSERT does not
name the column), and a column the old code may leave NULL cannot become NOT NULL.

Such a change takes two releases: the first stops reading and writing the column (or
always writes it), the second drops it (or constrains it). The second step's migration
says so, with the release that stopped reading the column, and is then let through:

    class Migration(migrations.Migration):
        second_step_after = "<the release that stopped reading what this drops>"

The migrations are read from their files through Django's migration API (the loader,
each operation's ``state_forwards``), with no database: the answer is the same on SQLite
and on PostgreSQL. django-migration-linter judges the SQL that ``sqlmigrate`` prints
instead, which differs by database and misleads both ways here: on SQLite, adding a
column with a default rebuilds the table, which it reports as NOT NULL and unique errors
(14 of the project's migrations, safe ones among them); on PostgreSQL it weighs all the
statements of a migration together, so one column with a database default hides another
without one (``client_seeds`` of games 0010).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from django.apps import apps
from django.conf import settings
from django.db import migrations
from django.db.migrations.loader import MigrationLoader
from django.db.migrations.operations.fields import FieldOperation
from django.db.models import NOT_PROVIDED

MARK = "second_step_after"

# Raw SQL that may drop, rename or constrain: someone reads it (a RunPython is data).
RISKY_SQL = re.compile(r"\b(DROP|RENAME)\b|\bSET\s+NOT\s+NULL\b", re.IGNORECASE)


# What a problem is about: the old code's queries fail (a dropped or renamed column or
# table), or its inserts do (a new NOT NULL column with no default in the database).
DROP_OR_RENAME, NEW_NOT_NULL, OTHER = "drop or rename", "new NOT NULL column", "other"


@dataclass(frozen=True)
class Finding:
    app_label: str
    migration: str
    problem: str
    kind: str = OTHER
    second_step_after: str = ""  # the mark of a reviewed second step

    def __str__(self) -> str:
        return f"{self.app_label} {self.migration}: {self.problem}"


def project_apps() -> list[str]:
    """The labels of the project's own apps (not those of installed packages)."""
    root = Path(settings.BASE_DIR).resolve()
    labels = []
    for config in apps.get_app_configs():
        path = Path(config.path).resolve()
        if path.is_relative_to(root) and "site-packages" not in path.parts:
            labels.append(config.label)
    return labels


def findings(app_labels: list[str] | None = None) -> list[Finding]:
    """Every breaking operation of the migrations of ``app_labels`` (default: the
    project's apps), marked ones included with their mark."""
    loader = MigrationLoader(None, ignore_no_migrations=True)
    labels = set(project_apps() if app_labels is None else app_labels)
    found = []
    for (app_label, name), migration in sorted(loader.disk_migrations.items()):
        if app_label not in labels:
            continue
        state = loader.project_state((app_label, name), at_end=False)
        mark = str(getattr(migration, MARK, "") or "")
        for kind, problem in breaking_operations(app_label, migration.operations, state):
            found.append(Finding(app_label, name, problem, kind, mark))
    return found


def unmarked(found: list[Finding]) -> list[Finding]:
    return [finding for finding in found if not finding.second_step_after]


def breaking_operations(app_label: str, operations, state) -> list[tuple[str, str]]:
    """What in ``operations`` breaks the old code, as (kind, problem); ``state`` (a
    ProjectState, the state before them) is moved forward through them."""
    problems: list[tuple[str, str]] = []
    created: set[str] = set()  # tables this migration makes: the old code knows none
    for operation in operations:
        problems += _problems(app_label, operation, state, created)
        operation.state_forwards(app_label, state)
    return problems


def _problems(app_label: str, operation, state, created: set[str]) -> list[tuple[str, str]]:
    if isinstance(operation, migrations.SeparateDatabaseAndState):
        return breaking_operations(app_label, operation.database_operations, state.clone())
    if isinstance(operation, migrations.RunSQL):
        sql = operation.sql if isinstance(operation.sql, str) else " ".join(map(str, operation.sql))
        if RISKY_SQL.search(sql):
            return [(OTHER, f"runs SQL that may drop, rename or constrain: {sql[:80]}")]
        return []
    if isinstance(operation, migrations.CreateModel):
        created.add(operation.name_lower)
        return []
    if isinstance(operation, migrations.DeleteModel):
        if operation.name_lower in created:
            return []
        return [(DROP_OR_RENAME, f"drops the table of {operation.name}")]
    if isinstance(operation, migrations.RenameModel):
        model = state.models[app_label, operation.old_name_lower]
        if model.options.get("db_table"):  # the table keeps its name
            return []
        return [
            (DROP_OR_RENAME, f"renames the table of {operation.old_name} to {operation.new_name}")
        ]
    if isinstance(operation, migrations.AlterModelTable):
        model = state.models[app_label, operation.name_lower]
        if model.options.get("db_table") == operation.table:
            return []
        return [(DROP_OR_RENAME, f"renames the table of {operation.name} to {operation.table}")]
    if not isinstance(operation, FieldOperation):
        return []
    if operation.model_name_lower in created:
        return []
    where = f"{operation.model_name}.{operation.name}"
    if isinstance(operation, migrations.RemoveField):
        field = state.models[app_label, operation.model_name_lower].fields[operation.name]
        what = "table" if field.many_to_many else "column"
        return [(DROP_OR_RENAME, f"drops the {what} of {where}")]
    if isinstance(operation, migrations.RenameField):
        old = state.models[app_label, operation.model_name_lower].fields[operation.old_name]
        if old.db_column:  # the column keeps its name
            return []
        return [
            (DROP_OR_RENAME, f"renames the column of {operation.model_name}.{operation.old_name}")
        ]
    if isinstance(operation, migrations.AddField):
        field = operation.field
        if field.many_to_many or field.null or field.db_default is not NOT_PROVIDED:
            return []
        return [
            (
                NEW_NOT_NULL,
                f"adds {where} NOT NULL without a default in the database (db_default): "
                "the old code's inserts fail",
            )
        ]
    if isinstance(operation, migrations.AlterField):
        old = state.models[app_label, operation.model_name_lower].fields[operation.name]
        new = operation.field
        problems = []
        if _column(operation.name, old) != _column(operation.name, new):
            problems.append((DROP_OR_RENAME, f"renames the column of {where}"))
        if old.null and not new.null:
            problems.append((OTHER, f"makes {where} NOT NULL: the old code may write NULL"))
        if type(old) is not type(new) and old.get_internal_type() != new.get_internal_type():
            types = f"{old.get_internal_type()} to {new.get_internal_type()}"
            problems.append((OTHER, f"changes the type of {where} ({types})"))
        if old.max_length and new.max_length and new.max_length < old.max_length:
            problems.append((OTHER, f"shortens {where} ({old.max_length} to {new.max_length})"))
        return problems
    return []


def _column(name: str, field) -> str:
    if field.db_column:
        return field.db_column
    return f"{name}_id" if field.many_to_one or field.one_to_one else name
