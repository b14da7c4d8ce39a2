"""The English a translated page must not show: read from the catalogue itself."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import polib
from django.conf import settings

PLACEHOLDER = re.compile(r"%\(\w+\)[sd]|%[sd]|\{\w+\}|<[^>]+>|\{\{[^}]*\}\}")


@cache
def english_fragments(language: str) -> frozenset[str]:
    """The English texts the catalogue of ``language`` translates: each msgid cut at its
    placeholders and tags, the pieces of two words or more (10 characters at least) that
    no translation of the entry also uses."""
    path = Path(settings.BASE_DIR) / "locale" / language / "LC_MESSAGES" / "django.po"
    fragments = set()
    for entry in polib.pofile(str(path)).translated_entries():
        translations = [entry.msgstr, *entry.msgstr_plural.values()]
        for msgid in filter(None, [entry.msgid, entry.msgid_plural]):
            for piece in PLACEHOLDER.split(msgid):
                piece = piece.strip(" .,:;!?()–-·\n")
                if len(piece) >= 10 and " " in piece and not any(piece in t for t in translations):
                    fragments.add(piece)
    assert len(fragments) > 200, f"the {language} catalogue translates next to nothing"
    return frozenset(fragments)


def english_in(text: str, language: str) -> list[str]:
    """The English fragments found in ``text`` (a page's visible text)."""
    return sorted(f for f in english_fragments(language) if f in text)


_NUMBER = r"-?\d+(?:\.\d+)?"
_GEOMETRY = ("x", "y", "x1", "x2", "y1", "y2", "cx", "cy", "r", "dy", "width", "height")


def unlocalised_svg(html: str) -> list[str]:
    """What in the page's SVG drawings is not a plain number where one is drawn (a
    coordinate written with a decimal comma, "150,5", draws somewhere else): [] if all are."""
    wrong = []
    for svg in re.findall(r"<svg\b.*?</svg>", html, re.S):
        for name, value in re.findall(r'\s([a-z0-9]+)="([^"]*)"', svg):
            if name in _GEOMETRY and not re.fullmatch(_NUMBER + "%?", value):
                wrong.append(f'{name}="{value}"')
            elif name == "points" and not all(
                re.fullmatch(f"{_NUMBER},{_NUMBER}", pair) for pair in value.split()
            ):
                wrong.append(f'points="{value[:40]}…"')
            elif name == "viewBox" and not all(re.fullmatch(_NUMBER, n) for n in value.split()):
                wrong.append(f'viewBox="{value}"')
    return wrong
