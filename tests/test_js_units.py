"""The board's pure renderers (static/js/board-render.js) under ``node --test``.

The tests in tests/js/ draw real views of the engine with the site's real words; this
test writes both to files and runs them. Without node the test is skipped on a
developer's machine and fails in CI (``CI`` set), as the browser tests do.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
from pathlib import Path

import pytest
from django.utils import translation

from games import rules
from games.rules import player_view
from games.words_js import words_json

TESTS = Path(__file__).parent / "js"
ROOT = Path(__file__).parent.parent


def _apply(state, seat, command, rng):
    for event in rules.decide(state, seat, command, rng):
        state = rules.evolve(state, event)
    return state


def boards() -> dict:
    """Views of real games at the moments the tests draw, each from the mover's side."""
    found: dict = {}
    wanted = ("start", "direction", "placement_trick", "trick_used", "one_die", "round_end")
    for seed in range(60):
        rng = random.Random(seed)
        _, events = rules.new_game(rng, extra_wild=True)
        state = rules.replay(events)
        while not state.finished:
            seat = state.turn
            view = player_view(state, seat)
            tricks = view["me"]["tricks"]
            moments = {
                "start": state.round == 1 and state.phase == "turn" and not view["round_end"],
                "direction": state.phase == "direction",
                "placement_trick": state.phase == "placement" and any(t["usable"] for t in tricks),
                "trick_used": any(t["block"] == "trick_used" for t in tricks)
                and state.phase == "placement",
                "one_die": view["must_shanghai"] == "one_die",
                "round_end": view["round_end"] and state.phase == "turn",
            }
            for name, now in moments.items():
                if now:
                    found.setdefault(name, view)
            legal = [c for c in rules.legal_commands(state, seat) if c["type"] != "resign"]
            tricks_legal = [c for c in legal if c["type"] == "trick"]
            calls = [c for c in legal if c["type"] == "shanghai"]
            if tricks_legal and rng.random() < 0.5:
                command = rng.choice(tricks_legal)
            elif calls and rng.random() < 0.2:
                command = calls[0]
            else:
                command = rng.choice([c for c in legal if c["type"] != "shanghai"] or legal)
            state = _apply(state, seat, command, rng)
        found.setdefault("finished", player_view(state, 0))
        if all(name in found for name in wanted):
            break
    start = rules.replay(rules.new_game(random.Random(5), extra_wild=False)[1])
    found["resigned_at_once"] = player_view(_apply(start, 0, {"type": "resign"}, None), 0)
    assert set(wanted) <= set(found), sorted(found)
    return found


def test_the_renderers_pass_their_node_tests(tmp_path):
    node = shutil.which("node")
    if node is None:
        if os.environ.get("CI"):
            pytest.fail("node is not installed: the renderers' unit tests must run in CI")
        pytest.skip("node is not installed — the renderers' unit tests skipped")
    with translation.override("en"):
        words = words_json()
    (tmp_path / "words.json").write_text(json.dumps(words))
    (tmp_path / "boards.json").write_text(json.dumps(boards()))
    env = {
        **os.environ,
        "SHANGHAIEN_WORDS": str(tmp_path / "words.json"),
        "SHANGHAIEN_BOARDS": str(tmp_path / "boards.json"),
    }
    files = sorted(str(p) for p in TESTS.glob("*.test.mjs"))
    assert files, "no tests in tests/js"
    done = subprocess.run(
        [node, "--test", *files], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stdout + done.stderr
