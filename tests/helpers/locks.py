"""The project's declared dependencies (pyproject.toml) and its lock files (requirements/),
read as pip reads them."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]
LOCKS = ROOT / "requirements"
HASH = re.compile(r"--hash=sha256:([0-9a-f]{64})\b")


def canonical(name: str) -> str:
    return canonicalize_name(name)


@dataclass(frozen=True)
class Pin:
    requirement: Requirement
    hashes: tuple[str, ...]

    @property
    def name(self) -> str:
        return canonical(self.requirement.name)

    @property
    def version(self) -> str:
        (specifier,) = self.requirement.specifier
        return specifier.version

    def applies(self) -> bool:
        """Whether pip installs it on this interpreter (its environment marker)."""
        marker = self.requirement.marker
        return marker is None or marker.evaluate()


@cache
def locked(lock: str) -> tuple[Pin, ...]:
    """Every entry of ``requirements/<lock>``: a line and its continuations, comments out."""
    text = (LOCKS / lock).read_text()
    entries = re.sub(r"\\\n", " ", text).splitlines()
    found = []
    for entry in entries:
        entry = entry.split(" #", 1)[0].strip()
        if not entry or entry.startswith("#"):
            continue
        requirement = Requirement(entry.split(" --", 1)[0].strip())
        found.append(Pin(requirement, tuple(HASH.findall(entry))))
    return tuple(found)


def pins(lock: str) -> dict[str, str]:
    """What ``requirements/<lock>`` installs on this interpreter: name to version."""
    return {pin.name: pin.version for pin in locked(lock) if pin.applies()}


@cache
def pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def declared(*groups: str) -> tuple[Requirement, ...]:
    """The requirements of pyproject.toml's groups: "runtime" (the project's dependencies),
    an extra's name ("test", "dev"), or "build" (the build system's)."""
    project = pyproject()["project"]
    lines = []
    for group in groups:
        if group == "runtime":
            lines += project["dependencies"]
        elif group == "build":
            lines += pyproject()["build-system"]["requires"]
        else:
            lines += project["optional-dependencies"][group]
    return tuple(Requirement(line) for line in lines)
