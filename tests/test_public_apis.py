"""Only the public APIs of the libraries the site is built on: no module of the project
imports a private part of Django, allauth, Channels, Daphne, django-ninja or pydantic.

Private means a module path with a segment ``internal`` or starting with ``_`` (allauth
keeps its moving parts in ``allauth.*.internal``), a ``_``-prefixed name imported from
them, or a ``_``-prefixed attribute read through a name such an import bound
(``from django import db; db._x``). Dunder names (``__version__``) are public, and so are
the underscore attributes Django documents: ``Model._meta`` (the Options API) and the
default and base managers. The check reads the syntax tree of every Python file in the
repository, so neither a comment nor a string can hide or fake an import; calls of
``import_module``/``import_string`` with a constant path count as imports too.
"""

from __future__ import annotations

import ast
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
LIBRARIES = {"django", "allauth", "channels", "daphne", "ninja", "pydantic"}
DOCUMENTED = {"_meta", "_default_manager", "_base_manager"}
IMPORTERS = {"import_module", "import_string", "__import__"}


def private(name: str) -> bool:
    return name == "internal" or (name.startswith("_") and not name.endswith("__"))


def library_path(path: str) -> bool:
    return path.split(".")[0] in LIBRARIES


def private_path(path: str) -> bool:
    return library_path(path) and any(private(part) for part in path.split("."))


def violations(source: str, filename: str = "<source>") -> list[str]:
    """Each private use in ``source``, as "line: what"."""
    tree = ast.parse(source, filename)
    found = []
    bound = set()  # names bound to a library module or one of its objects

    def flag(node, what):
        found.append(f"{node.lineno}: {what}")

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if private_path(alias.name):
                    flag(node, f"import {alias.name}")
                if library_path(alias.name):
                    bound.add(alias.asname or alias.name.split(".")[0])
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level or not library_path(module):
                continue  # the project's own modules, __future__, other libraries
            if private_path(module):
                flag(node, f"from {module} import ...")
            for alias in node.names:
                if private(alias.name):
                    flag(node, f"from {module} import {alias.name}")
                bound.add(alias.asname or alias.name)
        elif isinstance(node, ast.Call):
            function = node.func
            name = getattr(function, "id", None) or getattr(function, "attr", None)
            if name in IMPORTERS and node.args:
                first = node.args[0]
                path = first.value if isinstance(first, ast.Constant) else None
                if isinstance(path, str) and private_path(path):
                    flag(node, f"{name}({path!r})")
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            chain, base = [node.attr], node.value
            while isinstance(base, ast.Attribute):
                chain.append(base.attr)
                base = base.value
            if not (isinstance(base, ast.Name) and base.id in bound):
                continue
            chain.reverse()
            # only the first private step: a._x._y is one finding, at a._x
            inner = [a for a in chain if private(a) and a not in DOCUMENTED]
            if inner and chain[-1] == inner[0]:
                flag(node, f"{base.id}.{'.'.join(chain)}")
    return found


def project_files() -> list[pathlib.Path]:
    listed = subprocess.run(
        ["git", "ls-files", "*.py"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    return [ROOT / name for name in listed if (ROOT / name).exists()]


def test_no_module_of_the_project_uses_a_private_part_of_its_libraries():
    files = project_files()
    assert len(files) > 100  # the walk found the project
    found = []
    for path in files:
        for finding in violations(path.read_text(encoding="utf-8"), str(path)):
            found.append(f"{path.relative_to(ROOT)}:{finding}")
    assert found == []


@pytest.mark.parametrize(
    "source",
    [
        "from allauth.core.internal import ratelimit",
        "from allauth.account.internal.flows.login import record_authentication",
        "import allauth.account.internal.stagekit as stagekit",
        "import allauth.account.internal.stagekit",
        "from allauth.core import internal",
        "from django.utils._os import safe_join",
        "from django.db.models.query import _get_related",
        "from channels import _private as p",
        "from django.contrib import messages\nmessages.api._x",
        "import django.db\ndjango.db.connection._cursor()",
        "from django.db import connection as c\nc._nodb_cursor()",
        "from importlib import import_module\nimport_module('allauth.core.internal.ratelimit')",
        "from django.utils.module_loading import import_string\n"
        "import_string('daphne._private.Thing')",
        "if True:\n    def f():\n        from pydantic._internal import _model_construction",
        "from ninja.signature import details\ndetails._x",
    ],
)
def test_the_walk_finds_a_private_use(source):
    assert violations(source), source


@pytest.mark.parametrize(
    "source",
    [
        "from __future__ import annotations",
        "from django.db import models\nmodels.Model._meta.get_field('x')",
        "from games.models import Seat\nSeat._meta.concrete_fields",
        "from django.db import models\nmodels.Model._default_manager",
        "import django\ndjango.__version__",
        "from ._helpers import thing",  # the project's own module
        "from shanghaien.lib import _x",  # the project's own name
        "import json\njson._default_decoder",  # not one of the libraries checked
        "x = 'from allauth.core.internal import ratelimit'  # in a string",
        "# from django.utils._os import safe_join",
        "def f(request):\n    return request._messages",  # not a name an import bound
    ],
)
def test_the_walk_lets_public_uses_pass(source):
    assert violations(source) == []
