"""No two modules of the project share a name, unless they are the same kind of thing in
parallel apps (each app's models, admin, urls…): a name says what a module holds."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SKIP = {".venv", "node_modules", "staticfiles", ".git", ".hypothesis"}

# The names Django, pytest and the project's own conventions give a module in every app
# (or every test folder) that has one.
PARALLEL = {
    "__init__",
    "0001_initial",
    "admin",
    "api",
    "apps",
    "conftest",
    "forms",
    "messages",
    "middleware",
    "models",
    "queries",
    "services",
    "test_pages",  # each app's tests of its pages (tests/<app>/test_pages.py)
    "urls",
    "views",
}


def shared_names(root: Path) -> dict[str, list[str]]:
    """Each module name used more than once under ``root``, with its paths."""
    paths = defaultdict(list)
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root).parts
        if any(part in SKIP or part.startswith(".") for part in parts[:-1]):
            continue
        paths[path.stem].append("/".join(parts))
    return {name: found for name, found in paths.items() if len(found) > 1}


def test_no_two_modules_share_a_name():
    clashes = {name: paths for name, paths in shared_names(ROOT).items() if name not in PARALLEL}
    assert not clashes, clashes


def test_a_clash_is_seen(tmp_path):
    for folder in ("one", "two"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "analysis.py").write_text("")
    (tmp_path / ".venv").mkdir()
    (tmp_path / ".venv" / "analysis.py").write_text("")
    assert shared_names(tmp_path) == {"analysis": ["one/analysis.py", "two/analysis.py"]}
