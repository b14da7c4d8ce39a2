"""The schemes hmac-sha256-v2 and hmac-sha256-v1 (games.rules.fairness) against
docs/fairness.md: their test vectors, the rejection sampling, the shuffle, and the
stand-alone verifier, run on whole games played with the stream."""

from __future__ import annotations

import copy
import hashlib
import hmac
import json
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

from games.rules import decide, evolve, fairness, new_game, random_command
from games.rules.cards import DECK

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "fairness.md"
VERIFIER = ROOT / "static" / "fairness" / "verify_fairness.py"


def section(title: str) -> str:
    """The text of one ``## title`` section of docs/fairness.md."""
    text = DOC.read_text(encoding="utf-8")
    return text.split(f"\n## {title}\n", 1)[1].split("\n## ", 1)[0]


def documented_vectors() -> list[dict]:
    blocks = re.findall(r"^```json\n(.*?)^```$", section("Test vectors"), re.S | re.M)
    return [json.loads(block) for block in blocks]


def documented_headings() -> list[str]:
    """The ``###`` heading above each vector, in the order of the vectors."""
    text, headings = section("Test vectors"), []
    for part in re.split(r"^### ", text, flags=re.M)[1:]:
        title = part.split("\n", 1)[0]
        headings += [title] * len(re.findall(r"^```json$", part, re.M))
    return headings


def documented_verifier() -> str:
    return re.search(r"^```python\n(.*?)^```$", section("The verifier"), re.S | re.M).group(1)


def words_of_block(key: bytes, seeds, n: int, scheme: str = fairness.SCHEME_V1) -> list[int]:
    """Block ``n`` of the stream cut into its 8 words, straight from the definition."""
    if scheme == fairness.SCHEME_V1:
        message = f"{seeds[0]}:{seeds[1]}:{n}".encode()
    else:
        message = json.dumps([seeds[0], seeds[1], n], separators=(",", ":")).encode()
    block = hmac.new(key, message, hashlib.sha256).digest()
    return [int.from_bytes(block[i : i + 4], "big") for i in range(0, 32, 4)]


# -- the test vectors ---------------------------------------------------------------------


@pytest.mark.parametrize("scheme", fairness.SCHEMES)
def test_the_docs_give_at_least_three_vectors_of_each_scheme_with_the_required_seeds(scheme):
    vectors = [v for v in documented_vectors() if v["scheme"] == scheme]
    assert len(vectors) >= 3
    seeds = [tuple(v["client_seeds"]) for v in vectors]
    assert ("", "") in seeds and ("anna", "bernd") in seeds
    assert any(" " in s and re.search(r"[^\w ]", s) for pair in seeds for s in pair)
    for vector in documented_vectors():
        assert all(fairness.valid_client_seed(s) for s in vector["client_seeds"])
        assert len(bytes.fromhex(vector["server_seed"])) == fairness.SEED_BYTES
        assert len(vector["first_8_words"]) == 8
        assert len(vector["first_10_cards"]) == len(vector["first_10_dice"]) == 10


def test_the_three_v1_vectors_of_old_are_kept_and_labelled_v1():
    """The vectors published for hmac-sha256-v1 before v2 existed, word for word."""
    old = {
        ("anna", "bernd"): "ce3676c9",
        ("", ""): "3727d721",
        ("Ahoy, captain! 7:3", " fair winds; 100% {sure} "): "92d3ca12",
    }
    found = {}
    for vector, heading in zip(documented_vectors(), documented_headings(), strict=True):
        assert f"(v{vector['scheme'][-1]})" in heading or "Vectors 4 to 7" in heading, heading
        if vector["scheme"] == fairness.SCHEME_V1 and tuple(vector["client_seeds"]) in old:
            found[tuple(vector["client_seeds"])] = vector["first_8_words"][0]
    assert found == old


def test_the_ambiguity_of_v1_is_shown_and_gone_in_v2():
    pairs = (["a:b", "c"], ["a", "b:c"])
    by = {(v["scheme"], tuple(v["client_seeds"])): v for v in documented_vectors()}
    v1 = [by[fairness.SCHEME_V1, tuple(pair)] for pair in pairs]
    v2 = [by[fairness.SCHEME_V2, tuple(pair)] for pair in pairs]
    assert v1[0]["server_seed"] == v1[1]["server_seed"] == v2[0]["server_seed"]
    same = ("first_8_words", "first_10_cards", "first_10_dice")
    assert all(v1[0][key] == v1[1][key] for key in same)
    assert all(v2[0][key] != v2[1][key] for key in same)
    key = bytes.fromhex(v1[0]["server_seed"])
    streams = {
        scheme: [fairness.Stream(key, pair, scheme=scheme) for pair in pairs]
        for scheme in fairness.SCHEMES
    }
    for scheme, (one, other) in streams.items():
        words = [one.draw(2**32) for _ in range(64)], [other.draw(2**32) for _ in range(64)]
        assert (words[0] == words[1]) is (scheme == fairness.SCHEME_V1)


def test_an_unknown_scheme_is_refused():
    for scheme in ("hmac-sha256-v3", "", None, "HMAC-SHA256-V2"):
        with pytest.raises(ValueError):
            fairness.Stream(b"k", ("", ""), scheme=scheme)
        with pytest.raises(ValueError):
            fairness.derive(b"k", ("", ""), list(DECK), 1, scheme=scheme)
    assert fairness.SCHEME == fairness.SCHEME_V2 == "hmac-sha256-v2"
    assert fairness.SCHEMES == ("hmac-sha256-v1", "hmac-sha256-v2")


def test_the_v2_message_is_what_javascript_writes_for_printable_seeds():
    seeds = ('Ahoy, "captain"! 7:3', " \\ ~ ")
    message = fairness.block_message(seeds, 12, fairness.SCHEME_V2)
    assert message == b'["Ahoy, \\"captain\\"! 7:3"," \\\\ ~ ",12]'
    assert json.loads(message) == [*seeds, 12]
    assert fairness.block_message(("a", "b"), 0, fairness.SCHEME_V1) == b"a:b:0"


@pytest.mark.parametrize("index", range(10))
def test_a_documented_vector_is_what_the_code_computes(index):
    vector = documented_vectors()[index]
    key, seeds, scheme = (
        bytes.fromhex(vector["server_seed"]),
        vector["client_seeds"],
        vector["scheme"],
    )
    assert fairness.commitment(key) == vector["commitment"]
    assert hashlib.sha256(key).hexdigest() == vector["commitment"]
    words = [int(word, 16) for word in vector["first_8_words"]]
    assert words == words_of_block(key, seeds, 0, scheme)
    stream = fairness.Stream(key, seeds, scheme=scheme)
    assert [stream.draw(2**32) for _ in range(8)] == words  # k = 2**32 never rejects
    deck, first_player, dice = fairness.derive(key, seeds, list(DECK), 10, scheme=scheme)
    assert deck[:10] == vector["first_10_cards"]
    assert first_player == vector["first_player"]
    assert dice == vector["first_10_dice"]


def test_every_vector_follows_the_documented_order_of_draws():
    """The deck, then the first player, then the dice, from one stream, in that order."""
    assert len(documented_vectors()) == 10
    for vector in documented_vectors():
        key, seeds = bytes.fromhex(vector["server_seed"]), vector["client_seeds"]
        stream = fairness.Stream(key, seeds, scheme=vector["scheme"])
        deck = sorted(DECK)
        for i in range(47, 0, -1):
            j = stream.draw(i + 1)
            deck[i], deck[j] = deck[j], deck[i]
        assert deck[:10] == vector["first_10_cards"]
        assert stream.draw(2) == vector["first_player"]
        assert [stream.draw(6) + 1 for _ in range(10)] == vector["first_10_dice"]


# -- drawing and shuffling ----------------------------------------------------------------

# Found by scanning the stream of vector 1's seeds: the word at each position lies at or
# above 2**32 - 2**32 % k (0xfffffff0 for k = 48, 0xfffffffc for k = 6, a die), so
# draw(k) there must drop it and take the next.
REJECTED_KEY = bytes(range(32))
REJECTED_SEEDS = ("anna", "bernd")
REJECTED_ARGS = (REJECTED_KEY, REJECTED_SEEDS)
REJECTED = [(48, 83065831), (48, 436346996), (6, 1978211984)]


class ScriptedWords(fairness.Stream):
    """A stream whose words are given, to reach the rare rejected ones at will."""

    def __init__(self, *words: int):
        super().__init__(b"", ("", ""), scheme=fairness.SCHEME)
        self.words = list(words)

    def _word(self) -> int:
        self.position += 1
        return self.words.pop(0)


@pytest.mark.parametrize("k, position", REJECTED)
def test_draw_drops_a_word_at_or_above_the_last_multiple_of_k(k, position):
    block, offset = divmod(position, 8)
    words = words_of_block(REJECTED_KEY, REJECTED_SEEDS, block)
    following = words_of_block(REJECTED_KEY, REJECTED_SEEDS, block + 1)
    word, after = words[offset], (words + following)[offset + 1]
    limit = 2**32 - 2**32 % k
    assert word >= limit > after
    # k = 2**32 keeps every word: the stream at that position really holds it
    v1 = fairness.SCHEME_V1  # the words were found in v1's stream
    assert fairness.Stream(*REJECTED_ARGS, position=position, scheme=v1).draw(2**32) == word
    stream = fairness.Stream(*REJECTED_ARGS, position=position, scheme=v1)
    assert stream.draw(k) == after % k
    assert stream.position == position + 2  # the rejected word was taken and skipped
    if k == 6:  # as a die: the roll the engine asks for skips it the same way
        stream = fairness.Stream(*REJECTED_ARGS, position=position, scheme=v1)
        assert stream.randint(1, 6) == after % 6 + 1 and stream.position == position + 2


def test_draw_drops_the_four_highest_words_for_a_die_and_keeps_the_one_below():
    assert 2**32 % 6 == 4
    for word in range(2**32 - 4, 2**32):
        stream = ScriptedWords(word, 11)
        assert stream.draw(6) == 11 % 6 and stream.position == 2
    stream = ScriptedWords(2**32 - 5, 11)
    assert stream.draw(6) == (2**32 - 5) % 6 and stream.position == 1
    stream = ScriptedWords(2**32 - 1, 2**32 - 2, 2**32 - 3, 7)  # several in a row
    assert stream.randint(1, 6) == 7 % 6 + 1 and stream.position == 4


def test_the_shuffle_of_the_sorted_deck_is_a_permutation_of_the_48_cards():
    orders = set()
    for n in range(20):
        key = hashlib.sha256(b"deck %d" % n).digest()
        stream = fairness.Stream(key, (str(n), ""), scheme=fairness.SCHEME)
        deck = list(DECK)
        stream.shuffle(deck)
        assert len(deck) == 48 and sorted(deck) == sorted(DECK) and set(deck) == set(DECK)
        assert stream.position >= 47
        # the shuffle starts from the sorted cards, whatever order it is handed
        again = list(reversed(DECK))
        fairness.Stream(key, (str(n), ""), scheme=fairness.SCHEME).shuffle(again)
        assert again == deck
        orders.add(tuple(deck))
    assert len(orders) == 20


# -- the stand-alone verifier -------------------------------------------------------------


def test_the_verifier_in_the_docs_is_the_static_file_byte_for_byte():
    source = VERIFIER.read_bytes()
    assert documented_verifier().encode() == source
    lines = len(source.splitlines())
    assert source.endswith(b"\n") and lines <= 80
    intro = DOC.read_text(encoding="utf-8").split("\n## ", 1)[0]
    assert f"a verifier\nof {lines} lines" in intro or f"a verifier of {lines} lines" in intro


def test_the_verifier_uses_nothing_beyond_four_standard_modules():
    imports = re.findall(r"^(?:import|from) (\w+)", VERIFIER.read_text(), re.M)
    assert set(imports) <= {"json", "hmac", "hashlib", "sys"}


SERVER_SEED = hashlib.sha256(b"a whole game").digest()
CLIENT_SEEDS = ["Ahoy, captain! 7:3", " x "]


def play_record(
    choices: int,
    client_seeds=CLIENT_SEEDS,
    extra_wild=False,
    stream_class=fairness.Stream,
    scheme=fairness.SCHEME,
) -> dict:
    """A whole game played by random players, every random outcome from the stream."""
    stream = stream_class(SERVER_SEED, client_seeds, scheme=scheme)
    chooser = random.Random(choices)
    state, log = new_game(stream, extra_wild=extra_wild)
    log = list(log)
    while not state.finished:
        seat = state.turn
        new = decide(state, seat, random_command(state, seat, chooser), stream)
        for event in new:
            state = evolve(state, event)
        log += new
    return {
        "format": "shanghaien-game",
        "format_version": 1,
        "extra_wild": extra_wild,
        "events": [{"seq": seq, "event": event} for seq, event in enumerate(log, start=1)],
        "fairness": {
            "scheme": scheme,
            "commitment": fairness.commitment(SERVER_SEED),
            "server_seed": SERVER_SEED.hex(),
            "client_seeds": list(client_seeds),
        },
    }


def rerolled(record: dict) -> bool:
    return any(e["event"].get("half") == "reroll" for e in record["events"])


@pytest.fixture(scope="module")
def record() -> dict:
    """A game with a "Roll again" among its moves, so its dice come from both kinds of roll."""
    for choices in range(50):
        played = play_record(choices)
        if rerolled(played):
            return played
    raise AssertionError("no game with a reroll in 50")


def verify(record: dict, tmp_path: Path, command: list[str] | None = None) -> tuple[int, str]:
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record, indent=1), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, *(command or [str(VERIFIER)]), str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    return done.returncode, (done.stdout + done.stderr).strip()


def rolls(record: dict) -> list[dict]:
    return [entry for entry in record["events"] if entry["event"]["type"] == "rolled"]


def test_a_game_played_from_the_stream_is_verified_fair(record, tmp_path):
    assert record["events"][-1]["event"]["type"] == "game_ended"
    assert len(rolls(record)) > 20
    assert verify(record, tmp_path) == (0, "verified fair")


def test_the_variant_and_empty_seeds_verify_too(tmp_path):
    played = play_record(7, client_seeds=["", ""], extra_wild=True)
    assert played["events"][0]["event"]["extra_wild"] is True
    assert verify(played, tmp_path) == (0, "verified fair")


def test_a_v1_game_verifies_under_v1_and_not_under_v2(tmp_path):
    played = play_record(5, scheme=fairness.SCHEME_V1)
    assert verify(played, tmp_path) == (0, "verified fair")
    played["fairness"]["scheme"] = fairness.SCHEME_V2
    status, said = verify(played, tmp_path)
    assert status == 1 and said.startswith("the deck differs from the seeds at position ")


def test_the_verifier_tells_the_colon_seeds_apart_under_v2_only(tmp_path):
    """("a:b", "c") and ("a", "b:c"): one record verifies with both pairs under v1."""
    for scheme, both in ((fairness.SCHEME_V1, True), (fairness.SCHEME_V2, False)):
        played = play_record(2, client_seeds=["a:b", "c"], scheme=scheme)
        assert verify(played, tmp_path) == (0, "verified fair")
        played["fairness"]["client_seeds"] = ["a", "b:c"]
        assert (verify(played, tmp_path) == (0, "verified fair")) is both


def test_a_changed_die_is_named_by_its_event_and_die(record, tmp_path):
    forged = copy.deepcopy(record)
    entry = rolls(forged)[len(rolls(forged)) // 2]
    given = entry["event"]["dice"][1]
    entry["event"]["dice"][1] = given % 6 + 1
    status, said = verify(forged, tmp_path)
    assert status == 1
    assert said == (
        f"event {entry['seq']} (rolled): die 1 is {given % 6 + 1}, the seeds give {given}"
    )


def test_a_changed_first_die_of_the_last_roll_is_found(record, tmp_path):
    forged = copy.deepcopy(record)
    entry = rolls(forged)[-1]
    given = entry["event"]["dice"][0]
    entry["event"]["dice"][0] = 7 - given if given != 7 - given else given % 6 + 1
    status, said = verify(forged, tmp_path)
    assert status == 1 and said.startswith(f"event {entry['seq']} (rolled): die 0 is ")


def test_a_changed_deck_is_named_by_its_first_differing_position(record, tmp_path):
    forged = copy.deepcopy(record)
    deck = forged["events"][0]["event"]["deck"]
    deck[12], deck[30] = deck[30], deck[12]
    assert verify(forged, tmp_path) == (1, "the deck differs from the seeds at position 12")


def test_a_deck_with_a_card_that_does_not_exist_is_refused(record, tmp_path):
    forged = copy.deepcopy(record)
    deck = forged["events"][0]["event"]["deck"]
    position = deck.index("T8")
    deck[position] = "T9"  # sorts where T8 does: the seeds would shuffle it the same way
    expected = f"the deck differs from the seeds at position {position}"
    assert verify(forged, tmp_path) == (1, expected)
    forged["events"][0]["event"]["deck"] = deck + ["T9"]
    assert verify(forged, tmp_path) == (1, expected)
    forged["events"][0]["event"]["deck"] = record["events"][0]["event"]["deck"] + ["T9"]
    assert verify(forged, tmp_path) == (1, "the deck differs from the seeds at position 48")


def test_a_changed_first_player_is_named(record, tmp_path):
    forged = copy.deepcopy(record)
    start = forged["events"][0]["event"]
    given = start["first_player"]
    start["first_player"] = 1 - given
    expected = f"event 1 (game_started): first_player is {1 - given}, the seeds give {given}"
    assert verify(forged, tmp_path) == (1, expected)


def test_a_wrong_commitment_is_reported(record, tmp_path):
    forged = copy.deepcopy(record)
    forged["fairness"]["commitment"] = hashlib.sha256(b"another seed").hexdigest()
    assert verify(forged, tmp_path) == (1, "the commitment does not match the server seed")
    forged = copy.deepcopy(record)
    forged["fairness"]["server_seed"] = hashlib.sha256(b"another seed").hexdigest()
    assert verify(forged, tmp_path) == (1, "the commitment does not match the server seed")


def test_other_client_seeds_do_not_give_the_game(record, tmp_path):
    forged = copy.deepcopy(record)
    forged["fairness"]["client_seeds"] = [CLIENT_SEEDS[0], CLIENT_SEEDS[1].strip()]
    status, said = verify(forged, tmp_path)
    assert status == 1 and said.startswith("the deck differs from the seeds at position ")


def test_a_game_not_over_has_no_server_seed_to_check(record, tmp_path):
    forged = copy.deepcopy(record)
    del forged["fairness"]["server_seed"]
    expected = "no server seed: the game is not over, the deck and dice are NOT verified"
    assert verify(forged, tmp_path) == (1, expected)


class FirstWordHighest(fairness.Stream):
    """The stream with its first word made 2**32 - 1, which every draw(k) must drop."""

    def _word(self) -> int:
        first, word = self.position == 0, super()._word()
        return 2**32 - 1 if first else word


# Runs the verifier with the same first word, by wrapping hmac.digest before it starts.
HIGHEST_FIRST_WORD = """
import hmac, runpy, sys
real = hmac.digest
def digest(key, message, name):
    block = real(key, message, name)
    return b"\\xff" * 4 + block[4:] if message.endswith(b",0]") else block
hmac.digest = digest
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
"""


def test_the_verifier_skips_a_rejected_word_as_the_stream_does(tmp_path):
    played = play_record(3, stream_class=FirstWordHighest)
    assert played["events"][0]["event"]["deck"] != play_record(3)["events"][0]["event"]["deck"]
    command = ["-c", HIGHEST_FIRST_WORD, str(VERIFIER)]
    assert verify(played, tmp_path, command) == (0, "verified fair")
    # without the wrapped first word the same record is not what the seeds give
    status, said = verify(played, tmp_path)
    assert status == 1 and said.startswith("the deck differs from the seeds at position ")
