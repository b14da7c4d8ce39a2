"""Writes the frames' JSON Schemas into docs/protocol.md from their declarations.

    manage.py protocol_schemas --write   # rewrite every <!-- schema: NAME --> block
    manage.py protocol_schemas           # check: exit 1 if the document differs

The models in ``games.socket_messages`` are the declaration; the document shows them.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from games.socket_messages import schemas

DOC = Path(settings.BASE_DIR) / "docs" / "protocol.md"
BLOCK = re.compile(r"(<!-- schema: ([\w.]+) -->\s*```json\n)(.*?)(\n```)", re.S)


WIDTH = 96  # a line of the document


def laid_out(value, indent: str = "") -> str:
    """``value`` as JSON, each object or list on one line if it fits, else one per line."""
    flat = json.dumps(value, ensure_ascii=False)
    if len(indent) + len(flat) <= WIDTH or not isinstance(value, dict | list) or not value:
        return flat
    inner = indent + "  "
    if isinstance(value, dict):
        items = [
            f"{inner}{json.dumps(key)}: {laid_out(item, inner)}" for key, item in value.items()
        ]
        return "{\n" + ",\n".join(items) + "\n" + indent + "}"
    items = [f"{inner}{laid_out(item, inner)}" for item in value]
    return "[\n" + ",\n".join(items) + "\n" + indent + "]"


def written(text: str) -> str:
    """``text`` with each schema block holding its frame's declared schema."""
    declared = schemas()
    shown = {name for _, name, _, _ in BLOCK.findall(text)}
    missing = sorted(set(declared) - shown)
    unknown = sorted(shown - set(declared))
    if missing or unknown:
        raise CommandError(
            f"docs/protocol.md has no block for {missing or 'none'}; "
            f"declares nothing for {unknown or 'none'}"
        )

    def block(match: re.Match) -> str:
        return f"{match[1]}{laid_out(declared[match[2]])}{match[4]}"

    return BLOCK.sub(block, text)


class Command(BaseCommand):
    help = "Writes (--write) or checks the frame schemas of docs/protocol.md."

    def add_arguments(self, parser):
        parser.add_argument("--write", action="store_true", help="rewrite the document")

    def handle(self, *args, write=False, **options):
        text = DOC.read_text()
        new = written(text)
        if write:
            DOC.write_text(new)
            self.stdout.write("docs/protocol.md written")
        elif new != text:
            raise CommandError(
                "docs/protocol.md's schemas differ from games.socket_messages: "
                "run manage.py protocol_schemas --write"
            )
