"""The message shapes of docs/protocol.md, read from the document itself."""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

from jsonschema import Draft202012Validator

DOC = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"
BLOCK = re.compile(r"<!-- schema: ([\w.]+) -->\s*```json\n(.*?)\n```", re.S)


@cache
def validators() -> dict[str, Draft202012Validator]:
    found = {}
    for name, text in BLOCK.findall(DOC.read_text()):
        schema = json.loads(text)
        Draft202012Validator.check_schema(schema)
        found[name] = Draft202012Validator(schema)
    return found


def check(message: dict, side: str = "server") -> dict:
    """Raise unless ``message`` has the documented shape for its type; return it."""
    name = f"{side}.{message.get('type')}"
    validator = validators().get(name)
    assert validator is not None, f"{name} is not documented in docs/protocol.md"
    errors = sorted(validator.iter_errors(message), key=lambda e: list(e.path))
    assert not errors, f"{name}: " + "; ".join(
        f"{'/'.join(map(str, e.path))}: {e.message}" for e in errors[:5]
    )
    return message
