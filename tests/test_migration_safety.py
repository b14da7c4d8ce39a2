"""Upgrades that the release still serving survives: no migration drops, renames or
constrains what the old code uses unless it is a marked second step of a two-step change
(tests/helpers/migration_safety.py, docs/operations.md "Upgrading"); and no model change
lacks its migration."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from django.core.management import call_command

from .helpers.migration_safety import NEW_NOT_NULL, Finding, findings

ROOT = Path(__file__).resolve().parent.parent

# The last migration of each app from before this check. They added NOT NULL columns with
# a default in Python only, which the rule of their time allowed ("new columns have
# defaults") though the old code's inserts fail on such a column; every deployment has
# run them. From the next migration on a new column needs ``db_default`` (or null=True).
# Nothing else is excused here: a drop or rename is a marked second step, always.
BEFORE_THE_CHECK = {
    "accounts": "0011_push_subscriptions_and_channels",
    "games": "0010_provably_fair_seeds",
}


def failing(found: list[Finding]) -> list[Finding]:
    """The problems that fail an upgrade: neither a marked second step nor a new NOT NULL
    column of a migration from before this check."""
    return [
        finding
        for finding in found
        if not finding.second_step_after
        and not (
            finding.kind == NEW_NOT_NULL
            and finding.migration <= BEFORE_THE_CHECK.get(finding.app_label, "")
        )
    ]


def test_no_migration_breaks_the_release_still_serving():
    failures = failing(findings())
    assert not failures, (
        "These migrations break the release that still serves while they run; split the "
        "change in two releases and mark the second step's migration with "
        "second_step_after (docs/operations.md, 'Upgrading'):\n"
        + "\n".join(f"  {failure}" for failure in failures)
    )


def test_dropping_seat_seen_at_passes_only_as_the_marked_second_step():
    (drop,) = [f for f in findings(["games"]) if f.migration == "0006_drop_seat_seen_at"]
    assert drop.problem == "drops the column of seat.seen_at"
    assert drop.second_step_after == "1457031"
    assert failing([drop]) == []
    unmarked = Finding(drop.app_label, drop.migration, drop.problem, drop.kind)
    assert failing([unmarked]) == [unmarked]


def test_the_excuse_of_old_migrations_covers_no_new_one_and_no_drop():
    old = Finding("games", "0010_provably_fair_seeds", "adds game.x NOT NULL", NEW_NOT_NULL)
    new = Finding("games", "0011_next", "adds game.y NOT NULL", NEW_NOT_NULL)
    drop = Finding("games", "0002_clocks_notifications_rematches", "drops the column of game.z")
    assert failing([old, new, drop]) == [new, drop]


LEDGER_V1 = """
    from django.db import models

    class Entry(models.Model):
        note = models.CharField(max_length=20, null=True)
        amount = models.IntegerField(default=0)
"""
LEDGER_V2 = """
    from django.db import models

    class Entry(models.Model):
        amount = models.IntegerField(default=0)
        currency = models.CharField(max_length=3, default="EUR")
        booked = models.BooleanField(default=False, db_default=False)
        memo = models.TextField(null=True)
"""
REPORT = """
import json
from dataclasses import asdict
import django
django.setup()
from django.core.management import call_command
from tests.helpers.migration_safety import findings
call_command("makemigrations", "ledger", verbosity=0)
print(json.dumps([asdict(f) for f in findings(["ledger"])]))
"""


def test_a_generated_unsafe_migration_fails_the_check(tmp_path):
    """A temporary app, its migrations made by makemigrations: its second one drops a
    column and adds a NOT NULL one with a Python default only, and the check fails on
    both; the new table, the column with a database default, the nullable one pass."""
    app = tmp_path / "ledger"
    (app / "migrations").mkdir(parents=True)
    (app / "__init__.py").write_text("")
    (app / "migrations" / "__init__.py").write_text("")
    (tmp_path / "ledger_settings.py").write_text(
        "from shanghaien.settings import *  # noqa: F403\n"
        'INSTALLED_APPS = [*INSTALLED_APPS, "ledger"]  # noqa: F405\n'
    )
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "ledger_settings",
        "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)]),
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
    }

    def generate(models: str) -> list[Finding]:
        (app / "models.py").write_text(textwrap.dedent(models))
        run = subprocess.run(
            [sys.executable, "-c", REPORT],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert run.returncode == 0, run.stderr
        return [Finding(**f) for f in json.loads(run.stdout.splitlines()[-1])]

    assert generate(LEDGER_V1) == []  # 0001_initial: a new table
    found = generate(LEDGER_V2)
    (second,) = sorted(path.name for path in (app / "migrations").glob("0002_*.py"))
    assert {f.migration for f in found} == {second.removesuffix(".py")}
    assert sorted(f.problem for f in failing(found)) == [
        "adds entry.currency NOT NULL without a default in the database (db_default): "
        "the old code's inserts fail",
        "drops the column of entry.note",
    ]


@pytest.mark.django_db
def test_every_model_change_has_its_migration():
    out = io.StringIO()
    try:
        call_command("makemigrations", "--check", "--dry-run", stdout=out, stderr=out)
    except SystemExit:
        pytest.fail(f"models changed without a migration:\n{out.getvalue()}")
