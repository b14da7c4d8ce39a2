"""The page ``/fairness/``: how the deck and the dice are made so that nobody can choose
them, for players, with the stand-alone verifier to download and read, and a worked
example (the scheme itself: ``docs/fairness.md``).

Open to everyone, logged in or not. No database: the verifier is the static file players
download, read where the site serves it from, and the example is computed by the rules.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

from django.contrib.staticfiles import finders
from django.shortcuts import render

from games.rules import fairness
from games.rules.cards import DECK

# The static file players download; the page shows the same bytes.
VERIFIER = "fairness/verify_fairness.py"

# The first test vector of docs/fairness.md (tests/test_fairness_page.py keeps them equal).
EXAMPLE_SERVER_SEED = bytes(range(32))
EXAMPLE_CLIENT_SEEDS = ("anna", "bernd")
EXAMPLE_COUNT = 10  # cards of the deck and dice shown


@lru_cache(maxsize=4)
def _read(path: str, modified: int, size: int) -> str:
    return Path(path).read_text(encoding="utf-8")


def verifier_source() -> str:
    """The verifier's code, as the static file holds it (read again when it changes)."""
    path = finders.find(VERIFIER)
    if not path:
        raise FileNotFoundError(VERIFIER)
    stat = os.stat(path)
    return _read(str(path), stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=1)
def example() -> dict:
    """The first test vector, computed by the rules' own stream under the scheme new
    games use."""
    key, seeds, scheme = EXAMPLE_SERVER_SEED, EXAMPLE_CLIENT_SEEDS, fairness.SCHEME
    deck, first_player, dice = fairness.derive(key, seeds, list(DECK), EXAMPLE_COUNT, scheme=scheme)
    return {
        "scheme": scheme,
        "server_seed": key.hex(),
        "client_seeds": list(EXAMPLE_CLIENT_SEEDS),
        "commitment": fairness.commitment(key),
        "cards": deck[:EXAMPLE_COUNT],
        "first_player": first_player,
        "dice": dice,
    }


def fairness_page(request):
    context = {
        "verifier_path": VERIFIER,
        "verifier_name": Path(VERIFIER).name,
        "verifier": verifier_source(),
        "example": example(),
    }
    return render(request, "fairness.html", context)
