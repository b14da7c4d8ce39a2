"""The game's words (games/words.py): every card, command and event has its words, the
outcome is one sentence, and the JavaScript finds every word it asks for."""

import json
import random
import re
from pathlib import Path

import pytest
from django.utils import translation

from games import rules, words, words_js
from games.rules.state import ROUNDS

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = sorted((ROOT / "static" / "js").glob("*.js"))
TEMPLATES = sorted((ROOT / "templates").rglob("*.html"))
NAMES = {0: "anna", 1: "bernd"}


def said(text) -> bool:
    """Real words: a non-empty string with every placeholder filled."""
    return isinstance(text, str) and text.strip() and "%(" not in text and "None" not in text


def test_every_card_has_a_name_and_a_label():
    nations = words.nation_names()
    for card_id, card in rules.CARDS.items():
        name = words.card_name(card_id)
        label = words.card_label(card.to_json())
        assert said(name) and said(label), card_id
        if card.kind == "sailor":
            assert name == label == f"{nations[card.nation]} {card.value}"
        else:
            assert card_id in name and words.action_name(card.action) in name
            assert words.action_name(card.action) in label and "2 Sailors" in label
    assert words.card_label(None) == "—"
    assert set(nations) == set(rules.NATIONS) == set(words.nation_codes())


def played_games(seeds=range(4), give_up_after=None):
    """(state, events) after each command of a few random games, to their end."""
    for seed in seeds:
        rng = random.Random(seed)
        state, events = rules.new_game(rng, extra_wild=seed % 2 == 0)
        state = rules.replay(events)
        yield state, events
        moves = 0
        while not state.finished:
            seat = state.turn
            give_up = give_up_after is not None and moves >= give_up_after
            command = rules.random_command(state, seat, rng, give_up=give_up)
            if give_up:
                command = next(
                    c for c in rules.legal_commands(state, seat) if c["type"] == "resign"
                )
            events = rules.decide(state, seat, command, rng)
            for event in events:
                state = rules.evolve(state, event)
            moves += 1
            yield state, events


def test_every_command_the_rules_allow_has_words():
    seen = set()
    for state, _ in played_games():
        roll = list(state.roll) if state.roll else None
        for seat in (0, 1):
            for command in rules.legal_commands(state, seat):
                assert said(words.describe_command(command, roll)), command
                assert said(words.describe_command(command)), command
                seen.add((command["type"], command.get("half")))
    assert {("roll", None), ("place", None), ("shanghai", None), ("direction", None)} <= seen
    assert {("trick", "wild"), ("trick", "adjust")} <= seen


def test_a_trick_command_names_its_card_and_what_it_does():
    adjust = {"type": "trick", "card": "T1", "half": "adjust", "die": 1, "delta": -1}
    assert words.describe_command(adjust, [3, 5]) == "T1: Die ±1: 5 → 4"
    assert words.describe_command(adjust) == "T1: Die ±1: die 2 −1"
    wild = {"type": "trick", "card": "X1", "half": "wild", "nation": "dutch"}
    assert words.describe_command(wild) == "X1: 2 Sailors (a wild Dutch sailor)"
    assert words.describe_command({"type": "place", "die": 0}, [6, 2]) == "Place the 6"
    assert words.describe_command({"type": "direction", "one_at": "right"}) == (
        "Number 1 at the right end"
    )


@pytest.mark.parametrize("give_up_after", [None, 7])
def test_every_event_of_a_game_reads_as_a_sentence(give_up_after):
    kinds = set()
    for _, events in played_games(range(2), give_up_after):
        for event in events:
            kinds.add(event["type"])
            line = words.event_line(event, NAMES)
            if event["type"] in ("rolled", "placed", "trick_played", "shanghai_called"):
                assert said(line) and line.startswith(NAMES[event["seat"]] + " "), event
            elif line is not None:
                assert said(line), event
        phrase = words.describe_events(events)
        assert phrase == "" or said(phrase)
    assert {"game_started", "round_started", "rolled", "placed", "game_ended"} <= kinds


@pytest.mark.parametrize(
    "event, line",
    [
        ({"reason": "completed", "winner": 0}, "The last round is over: the game ends"),
        ({"reason": "resignation", "winner": 1}, "anna resigned: bernd wins"),
        ({"reason": "timeout", "winner": 0}, "bernd ran out of time: anna wins"),
        ({"reason": "adjudicated", "winner": 1}, "A moderator awarded the game to bernd"),
        ({"reason": "adjudicated", "winner": None}, "A moderator declared the game a draw"),
        ({"reason": "annulled", "winner": None}, "A moderator annulled the game: no result"),
        ({"reason": "aborted", "winner": None, "seat": 1}, "bernd aborted the game: no result"),
    ],
)
def test_every_ending_has_its_sentence(event, line):
    assert words.event_line({"type": "game_ended", **event}, NAMES) == line


def result(reason, winner, me=45, opponent=38):
    return {
        "winner": winner,
        "reason": reason,
        "me": {"total": me},
        "opponent": {"total": opponent},
    }


@pytest.mark.parametrize(
    "reason, winner, watching, sentence",
    [
        ("completed", "me", False, "Game over: You won, 45 : 38."),
        ("completed", "me", True, "Game over: anna won, 45 : 38."),
        ("completed", "opponent", False, "Game over: bernd won, 45 : 38."),
        ("completed", None, False, "Game over: A draw, 45 : 38."),
        ("resignation", "me", False, "Game over: You won (by resignation), 45 : 38."),
        ("resignation", "opponent", True, "Game over: bernd won (by resignation), 45 : 38."),
        ("timeout", "opponent", False, "Game over: bernd won (on time), 45 : 38."),
        ("adjudicated", "me", True, "Game over: anna won (by a moderator's decision), 45 : 38."),
        ("aborted", None, False, "Game aborted: no result."),
        ("annulled", None, True, "Game annulled by a moderator: no result."),
    ],
)
def test_the_outcome_is_one_sentence(reason, winner, watching, sentence):
    names = {"me": "anna", "opponent": "bernd"}
    assert words.outcome_sentence(result(reason, winner), names, watching) == sentence


def test_the_outcome_of_a_finished_view_reads_from_either_side():
    *_, (state, _) = played_games([3])
    for seat in (0, 1):
        view = rules.player_view(state, seat)
        names = {"me": NAMES[seat], "opponent": NAMES[1 - seat]}
        sentence = words.outcome_sentence(view["result"], names, watching=False)
        me, opponent = view["result"]["me"]["total"], view["result"]["opponent"]["total"]
        assert sentence.startswith("Game over: ") and sentence.endswith(f"{me} : {opponent}.")


# -- the JavaScript's words ----------------------------------------------------------------

CALL = re.compile(r"(?<!function )\b(?:t|html)\(\s*(\S)")
KEY = re.compile(r"\b(?:t|html)\(\s*\"([^\"]+)\"")


def keys_asked_for() -> dict[str, str]:
    found = {}
    for script in SCRIPTS:
        for key in KEY.findall(script.read_text()):
            found[key] = script.name
    return found


def lookup(table: dict, key: str):
    node = table
    for part in key.split("."):
        node = node[part]
    return node


def test_the_javascript_asks_only_for_words_by_their_literal_key():
    for script in SCRIPTS:
        for first in CALL.findall(script.read_text()):
            assert first == '"', f"{script.name}: a t()/html() key that is not a literal"
    assert len(keys_asked_for()) > 80  # the check sees the calls


def test_every_word_the_javascript_asks_for_exists():
    table = json.loads(json.dumps(words_js.words_json()))  # JSON-safe
    missing = []
    for key, script in sorted(keys_asked_for().items()):
        try:
            entry = lookup(table, key)
        except (KeyError, TypeError):
            missing.append(f"{script}: {key}")
            continue
        if isinstance(entry, dict):  # a count's forms
            assert set(entry) == {"one", "other"}, key
            assert all(said(form) and "{n}" in form for form in entry.values()), key
        else:
            assert said(entry), key
    assert not missing, "words the JavaScript asks for but words_json() lacks:\n" + "\n".join(
        missing
    )


def test_the_javascript_tables_cover_the_rules():
    table = words_js.words_json()
    assert list(table["nations"]) == list(rules.NATIONS)
    assert all(said(n["name"]) and said(n["code"]) for n in table["nations"].values())
    assert set(table["actions"]) == {*rules.TRICK_ACTIONS, "wild"}
    assert set(table["directions"]) == {"left", "right"}


def test_the_words_for_the_javascript_have_only_brace_placeholders():
    def strings(node):
        if isinstance(node, dict):
            for value in node.values():
                yield from strings(value)
        elif isinstance(node, str):
            yield node

    for text in strings(words_js.words_json()):
        assert "%(" not in text and "%%" not in text, text
    assert words_js.words_json()["status"]["their_turn"] == "{name}'s turn"
    assert words_js.words_json()["clock"]["days"] == {"one": "{n} day", "other": "{n} days"}


def test_another_language_is_served_without_errors():
    with translation.override("de"):
        table = words_js.words_json()
        assert table["language"] == "de"
        assert said(words.outcome_sentence(result("timeout", "me"), {"me": "a"}, False))
        assert said(words.describe_command({"type": "roll"}))
        assert all(said(words.card_name(card_id)) for card_id in rules.CARDS)
    assert words_js.words_json()["language"] == "en"


# -- the pages -----------------------------------------------------------------------------


def test_every_template_can_translate_and_none_writes_the_round_count():
    for template in TEMPLATES:
        text = template.read_text()
        assert re.search(r"{% load [^%]*\bi18n\b", text), f"{template.name} does not load i18n"
        assert not re.search(r"\bof 8\b|/ 8\b|\b8 rounds|\beight rounds", text), template.name
    assert ROUNDS == 8


@pytest.mark.django_db
def test_the_words_are_on_the_pages_that_run_scripts(client, django_user_model):
    assert 'id="words"' not in client.get("/accounts/login/").content.decode()  # no board script
    # a visitor's home page draws a board, with the words of the board
    assert 'id="words"' in client.get("/").content.decode()
    user = django_user_model.objects.create_user("anna", password="x")
    client.force_login(user)
    page = client.get("/").content.decode()
    data = re.search(r'<script id="words" type="application/json">(.*?)</script>', page, re.S)
    assert data and json.loads(data.group(1))["nations"]["dutch"]["code"] == "NL"
