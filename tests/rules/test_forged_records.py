"""Forged game records against both checkers: the project's (``games.rules.records``) and
the stand-alone verifier of docs/fairness.md. Each forgery starts from a real game, made
with the engine and the fairness stream, and must be refused, or said to be NOT verified;
the verifier answers any malformed record with a sentence and status 1, never a traceback.
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import io
import json
import random
import runpy
import subprocess
import sys
import tempfile
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.rules import DECK, decide, evolve, fairness, new_game, random_command
from games.rules.records import NOT_VERIFIED, VERIFIED, check_record, main

ROOT = Path(__file__).resolve().parents[2]
VERIFIER = ROOT / "static" / "fairness" / "verify_fairness.py"
SERVER_SEED = hashlib.sha256(b"the real game").digest()
CLIENT_SEEDS = ["a:b", "c"]  # a colon: v1 would read them as ("a", "b:c") too
FUZZ = settings(
    max_examples=150,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)


class Forger:
    """An rng of the forger's choosing: their deck, and seat 0 always rolling 6, 6."""

    def __init__(self, seed: int):
        self.honest = random.Random(seed)
        self.seat = None

    def shuffle(self, cards: list) -> None:
        cards[:] = sorted(DECK, reverse=True)  # every trick card at the bottom

    def randint(self, a: int, b: int) -> int:
        return b if self.seat == 0 else self.honest.randint(a, b)


def play(rng, choices: int, moves: int | None = None, **old) -> tuple[list, object]:
    chooser = random.Random(choices)
    state, log = new_game(rng)
    log, done = list(log), 0
    while not state.finished and (moves is None or done < moves):
        seat = state.turn
        if isinstance(rng, Forger):
            rng.seat = seat
        new = decide(state, seat, random_command(state, seat, chooser), rng)
        for event in new:
            state = evolve(state, event)
        log += new
        done += 1
    return log, state


def record(log, state, scheme=fairness.SCHEME_V2, seeds=CLIENT_SEEDS) -> dict:
    result = state.result
    return {
        "format": "shanghaien-game",
        "format_version": 1,
        "extra_wild": False,
        "result": {
            "status": "aborted" if result.reason == "aborted" else "finished",
            "reason": result.reason,
            "winner": result.winner,
            "scores": [s.total for s in result.scores],
        },
        "events": [{"seq": seq, "event": event} for seq, event in enumerate(log, start=1)],
        "fairness": {
            "scheme": scheme,
            "commitment": fairness.commitment(SERVER_SEED),
            "client_seeds": list(seeds),
            "server_seed": SERVER_SEED.hex(),
        },
    }


def real_game(scheme=fairness.SCHEME_V2) -> dict:
    stream = fairness.Stream(SERVER_SEED, CLIENT_SEEDS, scheme=scheme)
    return record(*play(stream, 11), scheme=scheme)


def forged_game() -> dict:
    """The forger's whole game, legal by the rules, under the real game's fairness data."""
    log, state = play(Forger(5), 11)
    forged = record(log, state)
    rolls = [e["event"]["dice"] for e in forged["events"] if e["event"]["type"] == "rolled"]
    seat_0 = [e["event"] for e in forged["events"] if e["event"].get("seat") == 0]
    assert all(e["dice"] == [6, 6] for e in seat_0 if e["type"] == "rolled") and rolls
    return forged


def dropped(record: dict, key: str) -> dict:
    del record[key]
    return record


def without(record: dict, *keys: str) -> dict:
    for key in keys:
        del record["fairness"][key]
    return record


def change(record: dict, **values) -> dict:
    record["fairness"].update(values)
    return record


def changed_die(record: dict) -> dict:
    rolled = next(e["event"] for e in record["events"][5:] if e["event"]["type"] == "rolled")
    rolled["dice"] = [6, 6] if rolled["dice"] != [6, 6] else [5, 5]
    return record


def aborted_after_the_deal(scheme=fairness.SCHEME_V2) -> dict:
    stream = fairness.Stream(SERVER_SEED, CLIENT_SEEDS, scheme=scheme)
    log, state = play(stream, 3, moves=1)
    ended = decide(state, 1, {"type": "abort"}, legacy_abort=True)  # the old rule allowed it
    state = evolve(state, ended[0])
    return record(log + ended, state, scheme=scheme)


def first_player_flipped(record: dict) -> dict:
    start = record["events"][0]["event"]
    start["first_player"] = 1 - start["first_player"]
    return record


# (name, the forgery, what the project's checker must say: a problem or NOT verified)
FORGERIES = [
    ("the forger's deck and dice", lambda: forged_game(), "the deck differs"),
    ("fairness removed", lambda: forged_game() | {"fairness": None}, NOT_VERIFIED),
    ("fairness key deleted", lambda: dropped(forged_game(), "fairness"), NOT_VERIFIED),
    ("only server_seed deleted", lambda: without(forged_game(), "server_seed"), "no server seed"),
    ("server_seed null", lambda: change(forged_game(), server_seed=None), "no server seed"),
    ("server_seed empty", lambda: change(forged_game(), server_seed=""), "64 hexadecimal"),
    ("server_seed not hex", lambda: change(forged_game(), server_seed="zz" * 32), "64 hexadecimal"),
    (
        "server_seed with spaces",
        lambda: change(real_game(), server_seed=" " * 64),
        "64 hexadecimal",
    ),
    (
        "the commitment changed",
        lambda: change(real_game(), commitment=fairness.commitment(b"other")),
        "commitment does not match",
    ),
    (
        "the forger's own seed and commitment",
        lambda: change(
            forged_game(),
            server_seed=hashlib.sha256(b"forger").hexdigest(),
            commitment=fairness.commitment(hashlib.sha256(b"forger").digest()),
        ),
        "the deck differs",
    ),
    ("the scheme changed to v1", lambda: change(real_game(), scheme="hmac-sha256-v1"), "differs"),
    ("an unknown scheme", lambda: change(real_game(), scheme="hmac-sha256-v3"), "is unknown"),
    ("no scheme", lambda: without(real_game(), "scheme"), "is unknown"),
    ("seeds swapped", lambda: change(real_game(), client_seeds=["c", "a:b"]), "differs"),
    ("the colon moved", lambda: change(real_game(), client_seeds=["a", "b:c"]), "differs"),
    ("one seed", lambda: change(real_game(), client_seeds=["a:b"]), "pair of valid seeds"),
    ("seeds not strings", lambda: change(real_game(), client_seeds=[1, 2]), "pair of valid seeds"),
    ("a seed too long", lambda: change(real_game(), client_seeds=["x" * 65, ""]), "valid seeds"),
    ("a seed not ASCII", lambda: change(real_game(), client_seeds=["\u00e9", ""]), "valid seeds"),
    ("fairness a string", lambda: real_game() | {"fairness": "fair"}, "not an object"),
    ("a die changed", lambda: changed_die(real_game()), "event "),
    ("the first player changed", lambda: first_player_flipped(real_game()), "event 1"),
    ("an abort after the deal in v2", aborted_after_the_deal, "cannot_abort"),
]


@pytest.mark.parametrize(("name", "forge", "said"), FORGERIES, ids=[f[0] for f in FORGERIES])
def test_every_forgery_is_refused_or_marked_not_verified(name, forge, said):
    forged = forge()
    check = check_record(forged)
    if said == NOT_VERIFIED:
        assert check.ok and not check.fair  # the rules hold; the deck and dice went unchecked
    else:
        assert not check.ok, name
        assert any(said in problem for problem in check.problems), check.problems
    if name == "an abort after the deal in v2":  # a rule broken, not the deck or the dice
        assert verifier(forged) == (0, "verified fair")
    else:
        assert verifier(forged)[0] == 1


def test_the_real_game_checks_and_verifies_under_both_schemes():
    for scheme in fairness.SCHEMES:
        real = real_game(scheme)
        check = check_record(real)
        assert check.ok and check.fair, check.problems
        assert verifier(real) == (0, "verified fair")
    assert len(FORGERIES) >= 16


def test_an_abort_of_the_old_rule_still_checks_under_v1_and_without_fairness():
    old = aborted_after_the_deal(fairness.SCHEME_V1)
    for kept, verified in ((old, True), (old | {"fairness": None}, False)):
        check = check_record(kept)
        assert check.ok and check.fair is verified, check.problems
        assert check.replayed["reason"] == "aborted"


# -- the command line -------------------------------------------------------------------


def run_checker(record, tmp_path) -> tuple[int, list[str]]:
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = main([str(path)])
    return status, out.getvalue().splitlines()


def test_the_command_line_says_in_a_line_of_its_own_whether_deck_and_dice_were_verified(tmp_path):
    status, lines = run_checker(real_game(), tmp_path)
    assert status == 0 and lines[-2:] == ["the record is legal and consistent", VERIFIED]
    status, lines = run_checker(forged_game() | {"fairness": None}, tmp_path)
    assert status == 0 and lines[-2:] == ["the record is legal and consistent", NOT_VERIFIED]
    status, lines = run_checker(without(forged_game(), "server_seed"), tmp_path)
    assert status == 1 and lines[-1] == "the record does NOT check out"
    assert VERIFIED not in lines and "the record is legal and consistent" not in lines


# -- the stand-alone verifier -------------------------------------------------------------


def run_verifier(arguments: list[str]) -> tuple[int, str]:
    """The verifier in this process (fast enough to fuzz): (exit status, what it said).
    Any exception but its own exit escapes, as a traceback would."""
    out = io.StringIO()
    argv = [str(VERIFIER), *arguments]
    with mock.patch.object(sys, "argv", argv), contextlib.redirect_stdout(out):
        try:
            runpy.run_path(str(VERIFIER), run_name="__main__")
        except SystemExit as exit:
            assert isinstance(exit.code, str), exit.code  # sys.exit(sentence): status 1
            return 1, exit.code
    return 0, out.getvalue().strip()


def verifier(record) -> tuple[int, str]:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "game.json"
        path.write_text(json.dumps(record), encoding="utf-8")
        return run_verifier([str(path)])


def is_sentence(said: str) -> bool:
    return "Traceback" not in said and said.strip() != "" and "\n" not in said.strip()


def test_the_verifier_says_plainly_that_a_record_without_fairness_is_not_verified():
    assert verifier(forged_game() | {"fairness": None}) == (
        1,
        "no fairness data: the deck and dice are NOT verified",
    )
    bare = forged_game()
    del bare["fairness"]
    assert verifier(bare)[1] == "no fairness data: the deck and dice are NOT verified"
    assert verifier(change(real_game(), scheme="x"))[1] == (
        "unknown scheme 'x': this verifier knows hmac-sha256-v1 and hmac-sha256-v2"
    )


@pytest.mark.parametrize(
    "arguments",
    [[], ["a.json", "b.json"], ["/"], ["/no/such/file.json"], ["/dev/null"], [str(VERIFIER)]],
)
def test_the_verifier_answers_a_bad_argument_with_a_sentence_and_status_1(arguments):
    done = subprocess.run(
        [sys.executable, str(VERIFIER), *arguments], capture_output=True, text=True, timeout=30
    )
    assert done.returncode == 1 and done.stdout == ""
    assert is_sentence(done.stderr), done.stderr


@pytest.mark.parametrize(
    "content",
    [b"\xff\xfe garbage", b"[" * 100_000, b"{", b"null", b"[]", b'"text"', b"{}", b"1e999"],
)
def test_the_verifier_answers_a_file_that_is_no_record_with_a_sentence(content, tmp_path):
    path = tmp_path / "game.json"
    path.write_bytes(content)
    done = subprocess.run(
        [sys.executable, str(VERIFIER), str(path)], capture_output=True, text=True, timeout=30
    )
    assert done.returncode == 1 and is_sentence(done.stderr), done.stderr


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=12,
)
REAL = real_game()
REAL_TEXT = json.dumps(REAL)


def paths(value, path=()):
    """Every place inside a JSON value, as the keys and indexes leading to it."""
    yield path
    if isinstance(value, dict):
        for key, inner in value.items():
            yield from paths(inner, (*path, key))
    elif isinstance(value, list):
        indexes = sorted({*range(min(len(value), 8)), *range(max(len(value) - 3, 0), len(value))})
        for index in indexes:  # the first and the last few of a long list
            yield from paths(value[index], (*path, index))


PLACES = [p for p in paths(REAL) if p]


def answers_in_a_sentence(record_text: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "game.json"
        path.write_text(record_text, encoding="utf-8")
        status, said = run_verifier([str(path)])
    assert (status, said) == (0, "verified fair") or (status == 1 and is_sentence(said)), said


@FUZZ
@given(JSON)
def test_fuzz_random_json(value):
    answers_in_a_sentence(json.dumps(value))


@FUZZ
@given(JSON, st.sampled_from(["fairness", "events", "result", "format"]))
def test_fuzz_random_json_in_a_key_of_the_record(value, key):
    answers_in_a_sentence(json.dumps({**REAL, key: value}))


@FUZZ
@given(st.integers(0, len(REAL_TEXT) - 1))
def test_fuzz_a_truncated_record(length):
    answers_in_a_sentence(REAL_TEXT[:length])


def place_in(record, path):
    for key in path[:-1]:
        record = record[key]
    return record, path[-1]


@FUZZ
@given(st.sampled_from(PLACES), JSON)
def test_fuzz_a_value_of_the_wrong_type(path, value):
    forged = copy.deepcopy(REAL)
    parent, key = place_in(forged, path)
    parent[key] = value
    answers_in_a_sentence(json.dumps(forged))


@FUZZ
@given(st.sampled_from(PLACES))
def test_fuzz_a_missing_key(path):
    forged = copy.deepcopy(REAL)
    parent, key = place_in(forged, path)
    del parent[key]
    answers_in_a_sentence(json.dumps(forged))
