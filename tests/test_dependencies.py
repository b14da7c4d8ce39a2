"""Every library the code imports is declared in pyproject.toml, and every declared one is
locked, with hashes, in the lock file its install reads (requirements/, `make lock`):
runtime.txt for serving, test.txt for the tests and the developers' tools, build.txt for
the build system."""

from __future__ import annotations

import ast
import importlib.metadata
import os
import re
import shutil
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest

from tests.helpers.locks import ROOT, canonical, declared, locked, pins

# Only the code: what `make run` and the image serve (every package of the project with its
# migrations and commands, and manage.py), apart from what tests and benchmarks use.
NOT_SERVED = {"tests", "bench"}
DOTTED = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")


def served_files() -> list[Path]:
    packages = [
        path
        for path in ROOT.iterdir()
        if (path / "__init__.py").is_file() and path.name not in NOT_SERVED
    ]
    assert {"shanghaien", "games", "accounts"} <= {package.name for package in packages}
    return [ROOT / "manage.py", *(file for package in packages for file in package.rglob("*.py"))]


def files_of_tests_and_benchmarks() -> list[Path]:
    return [file for top in sorted(NOT_SERVED) for file in (ROOT / top).rglob("*.py")]


def parse(file: Path) -> ast.AST:
    tree = ast.parse(file.read_text(), filename=str(file))
    for parent in ast.walk(tree):
        for child in ast.iter_child_nodes(parent):
            child.parent = parent
    return tree


def imported_modules(tree: ast.AST) -> set[str]:
    """The top-level modules of a file's import statements."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def in_a_setting(node: ast.AST) -> bool:
    """Whether ``node`` is an item of a list a setting is set to (``INSTALLED_APPS = [...]``,
    ``+= [...]``): such a string names an app, where elsewhere it is mere text."""
    collection = node.parent
    if not isinstance(collection, ast.List | ast.Tuple):
        return False
    statement = collection.parent
    if isinstance(statement, ast.Assign):
        targets = statement.targets
    elif isinstance(statement, ast.AugAssign | ast.AnnAssign):
        targets = [statement.target]
    else:
        return False
    return any(isinstance(target, ast.Name) and target.id.isupper() for target in targets)


def named_modules(tree: ast.AST) -> set[str]:
    """The top-level modules a file names by string, for Django to import: dotted paths
    (middleware, backends, formatters, ``import_module("x.y")``) and the bare names of a
    setting's list (``INSTALLED_APPS``)."""
    return {
        node.value.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and DOTTED.fullmatch(node.value)
        and ("." in node.value or in_a_setting(node))
    }


def own_modules() -> set[str]:
    return {path.name for path in ROOT.iterdir() if (path / "__init__.py").is_file()} | {
        path.stem for path in ROOT.glob("*.py")
    }


def not_third_party() -> set[str]:
    return set(sys.stdlib_module_names) | own_modules() | {"__future__"}


def third_party_imports(files: list[Path]) -> dict[str, set[str]]:
    """Distribution name -> the files that import one of its modules. A string that names
    no installed module (a URL name, a model label) is not an import."""
    providers = importlib.metadata.packages_distributions()
    found = defaultdict(set)
    for file in files:
        tree = parse(file)
        for name in (imported_modules(tree) | named_modules(tree)) - not_third_party():
            for distribution in providers.get(name, ()):
                found[canonical(distribution)].add(str(file.relative_to(ROOT)))
    return found


def test_every_library_the_served_code_imports_is_a_runtime_dependency():
    imported = third_party_imports(served_files())
    # the libraries the code is known to import, so that an empty walk cannot pass
    assert {"django", "channels", "daphne", "py-vapid", "cryptography", "requests"} <= set(imported)
    runtime = {canonical(requirement.name) for requirement in declared("runtime")}
    undeclared = {name: sorted(files) for name, files in imported.items() if name not in runtime}
    assert not undeclared, f"imported but not in [project] dependencies: {undeclared}"


def test_every_module_the_served_code_imports_is_installed():
    """A module that no installed distribution provides would escape the check above."""
    providers = importlib.metadata.packages_distributions()
    missing = defaultdict(set)
    for file in served_files():
        for name in imported_modules(parse(file)) - not_third_party() - set(providers):
            missing[name].add(str(file.relative_to(ROOT)))
    assert not missing, f"imported, but no installed distribution provides it: {dict(missing)}"


def test_every_library_the_tests_and_benchmarks_import_is_declared():
    imported = third_party_imports(files_of_tests_and_benchmarks())
    assert {"pytest", "playwright", "hypothesis"} <= set(imported)
    allowed = {
        canonical(requirement.name) for requirement in declared("runtime", "test", "dev", "build")
    }
    undeclared = {name: sorted(files) for name, files in imported.items() if name not in allowed}
    assert not undeclared, f"imported by tests or bench but not declared: {undeclared}"


@pytest.mark.parametrize(
    ("lock", "groups"),
    [
        ("build.txt", ("build",)),
        ("runtime.txt", ("runtime",)),
        ("test.txt", ("runtime", "test", "dev")),
    ],
)
def test_every_declared_dependency_is_pinned_with_hashes_in_its_lock(lock, groups):
    entries = locked(lock)
    assert entries
    for pin in entries:
        (specifier,) = pin.requirement.specifier
        assert specifier.operator == "==", f"{lock}: {pin.requirement} is not pinned"
        assert pin.hashes, f"{lock}: {pin.requirement} has no hash"
    versions = defaultdict(set)
    for pin in entries:
        versions[pin.name].add(pin.version)
    for requirement in declared(*groups):
        name = canonical(requirement.name)
        assert name in versions, f"{requirement} is declared but not in requirements/{lock}"
        assert all(requirement.specifier.contains(v) for v in versions[name]), (
            f"requirements/{lock} pins {name} at {versions[name]}, outside {requirement}"
        )


def entries(lock: str) -> set[tuple[str, str, str]]:
    return {(pin.name, pin.version, str(pin.requirement.marker)) for pin in locked(lock)}


def test_the_test_lock_pins_everything_the_runtime_lock_does_as_it_does():
    """`make test`'s install then also satisfies `make run`, without a second one."""
    runtime, test = entries("runtime.txt"), entries("test.txt")
    assert runtime <= test, f"pinned otherwise in test.txt: {sorted(runtime - test)}"


def test_no_lock_pins_the_build_tools_otherwise_than_build_txt():
    """Installed after build.txt, a lock with another setuptools would replace it."""
    build = pins("build.txt")
    for lock in ("runtime.txt", "test.txt"):
        other = {name: pins(lock)[name] for name in build if name in pins(lock)}
        assert other.items() <= build.items(), f"{lock} pins {other}, build.txt {build}"


def test_the_test_tools_are_not_in_the_runtime_lock():
    runtime = set(pins("runtime.txt"))
    for tool in ("pytest", "playwright", "ruff", "hypothesis", "uv"):
        assert tool in pins("test.txt") and tool not in runtime


def dry_run(target: str) -> list[str]:
    """The pip commands `make <target>` runs on a fresh checkout (make -n: nothing runs)."""
    env = {
        name: value
        for name, value in os.environ.items()
        if name not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")
    }
    venv = Path("/nonexistent/venv")  # no venv yet: every install step is printed
    listing = subprocess.run(
        ["make", "--no-print-directory", "-n", target, f"VENV={venv}"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return [line for line in listing.splitlines() if re.search(r"\bpip\b.*\binstall\b", line)]


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
@pytest.mark.parametrize(
    ("target", "locks"),
    [
        ("run", ["requirements/build.txt", "requirements/runtime.txt"]),
        ("test", ["requirements/build.txt", "requirements/test.txt"]),
        ("lint", ["requirements/build.txt", "requirements/test.txt"]),
    ],
)
def test_make_installs_from_the_locks_alone_with_hashes(target, locks):
    installs = dry_run(target)
    assert [line.split(" -r ")[-1].strip() for line in installs] == locks
    for line in installs:
        for option in ("--require-hashes", "--no-deps", "--no-build-isolation"):
            assert option in line.split(), f"{option} missing from: {line}"
