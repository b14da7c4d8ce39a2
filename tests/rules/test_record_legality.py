"""games.rules.records proves a record legal: every event is made again by the engine."""

import copy
import json
import pathlib
import random
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.rules import can_abort, decide, end_game, evolve, new_game, random_command, replay
from games.rules.records import check_record, main

ROOT = pathlib.Path(__file__).resolve().parents[2]
FEW = settings(
    max_examples=25,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)


def play(seed: int, extra_wild: bool = False, moves: int | None = None):
    """A random honest game, stopped after ``moves`` commands if given."""
    rng = random.Random(seed)
    state, log = new_game(rng, extra_wild=extra_wild)
    done = 0
    while state.result is None and (moves is None or done < moves):
        new = decide(state, state.turn, random_command(state, state.turn, rng), rng)
        for event in new:
            state = evolve(state, event)
        log += new
        done += 1
    return state, log


def end(state, log, events):
    for event in events:
        state = evolve(state, event)
    return state, log + events


def record_of(state, log) -> dict:
    """A record of the shape ``games.history.export`` gives."""
    result = state.result
    status = {"aborted": "aborted", "annulled": "annulled"}.get(result.reason, "finished")
    return {
        "format": "shanghaien-game",
        "format_version": 1,
        "id": 1,
        "extra_wild": state.extra_wild,
        "players": ["anna", "bernd"],
        "result": {
            "status": status,
            "reason": result.reason,
            "winner": result.winner,
            "scores": [s.total for s in result.scores],
        },
        "events": [
            {"seq": seq, "at": "2025-01-01T00:00:00+00:00", "event": event}
            for seq, event in enumerate(log, start=1)
        ],
    }


def honest(seed: int = 1, extra_wild: bool = False) -> dict:
    return record_of(*play(seed, extra_wild))


def renumber(record: dict) -> dict:
    for seq, entry in enumerate(record["events"], start=1):
        entry["seq"] = seq
    return record


def events(record: dict) -> list[dict]:
    return [entry["event"] for entry in record["events"]]


def refused_at(record: dict, seq: int) -> str:
    check = check_record(record)
    assert not check.ok and check.bad_seq == seq, check
    assert not check.replayed
    return check.problems[-1]


# -- honest records ---------------------------------------------------------------------


@pytest.mark.parametrize("extra_wild", [False, True])
def test_an_honest_completed_game_checks(extra_wild):
    record = honest(2, extra_wild)
    check = check_record(record)
    assert check.ok and check.problems == () and check.bad_seq is None
    assert check.replayed == {k: record["result"][k] for k in ("reason", "winner", "scores")}


def test_a_resigned_game_checks():
    state, log = play(3, moves=30)
    state, log = end(state, log, decide(state, 1, {"type": "resign"}))
    check = check_record(record_of(state, log))
    assert check.ok and check.replayed["reason"] == "resignation"
    assert check.replayed["winner"] == 0


def test_an_aborted_game_of_the_old_rule_checks():
    """A record without fairness data was made under the old rule: abort until both moved."""
    state, log = play(4, moves=1)
    assert can_abort(state, legacy_abort=True) and not can_abort(state)
    state, log = end(state, log, decide(state, 0, {"type": "abort"}, legacy_abort=True))
    check = check_record(record_of(state, log))
    assert check.ok and check.replayed == {"reason": "aborted", "winner": None, "scores": [0, 0]}
    assert not check.fair


@pytest.mark.parametrize(
    ("reason", "winner"), [("timeout", 1), ("annulled", None), ("adjudicated", 0)]
)
def test_a_game_ended_by_the_server_checks(reason, winner):
    state, log = play(5, moves=40)
    state, log = end(state, log, end_game(state, reason, winner))
    check = check_record(record_of(state, log))
    assert check.ok, check.problems
    assert check.replayed["reason"] == reason and check.replayed["winner"] == winner


# -- forged records ---------------------------------------------------------------------


def test_an_extra_placed_die_is_refused():
    record = honest(6)
    at = next(i for i, e in enumerate(events(record)) if e["type"] == "placed")
    placed = events(record)[at]
    extra = {**placed, "values": placed["values"]}
    record["events"].insert(at + 1, {"seq": 0, "at": "", "event": extra})
    problem = refused_at(renumber(record), at + 2)
    assert problem.startswith(f"event {at + 2} (placed): not_your_turn: ")


def test_a_die_placed_by_the_waiting_player_is_refused_as_not_rolled():
    record = honest(6)
    at = next(i for i, e in enumerate(events(record)) if e["type"] == "placed")
    placed = events(record)[at]
    extra = {**placed, "seat": 1 - placed["seat"]}
    record["events"].insert(at + 1, {"seq": 0, "at": "", "event": extra})
    problem = refused_at(renumber(record), at + 2)
    assert problem.startswith(f"event {at + 2} (placed): roll_first: ")


def test_three_dice_from_one_roll_are_refused():
    # "Add both dice" places both dice of the roll; a third placed event is one too many.
    for seed in range(200):
        record = honest(seed)
        log = events(record)
        both = [i for i, e in enumerate(log) if e["type"] == "trick_played" and e["half"] == "both"]
        if both:
            break
    at = both[0] + 1
    assert log[at]["type"] == "placed" and len(log[at]["values"]) == 2
    third = {**log[at], "values": [log[at]["values"][0]]}
    record["events"].insert(at + 1, {"seq": 0, "at": "", "event": third})
    problem = refused_at(renumber(record), at + 2)
    assert problem.startswith(f"event {at + 2} (placed): not_your_turn: ")


def test_two_dice_placed_without_a_trick_are_refused():
    record = honest(7)
    log = events(record)
    at = next(i for i, e in enumerate(log) if e["type"] == "placed")
    roll = next(e for e in reversed(log[:at]) if e["type"] == "rolled")
    log[at]["values"] = list(roll["dice"])
    problem = refused_at(record, at + 1)
    assert problem == (
        f"event {at + 1} (placed): places both dice, which only the trick 'Add both dice' allows"
    )


def test_a_placed_value_that_was_not_rolled_is_refused():
    record = honest(7)
    log = events(record)
    at = next(i for i, e in enumerate(log) if e["type"] == "placed")
    roll = next(e for e in reversed(log[:at]) if e["type"] == "rolled")["dice"]
    other = next(v for v in range(1, 7) if v not in roll)
    log[at]["values"] = [other]
    problem = refused_at(record, at + 1)
    assert problem == f"event {at + 1} (placed): places a {other}, but the dice show " + (
        f"{roll[0]} and {roll[1]}"
    )


@pytest.mark.parametrize("value", [7, 0, -1])
def test_a_die_out_of_range_is_refused(value):
    record = honest(8)
    at = next(i for i, e in enumerate(events(record)) if e["type"] == "rolled")
    events(record)[at]["dice"][1] = value
    assert refused_at(record, at + 1) == f"event {at + 1} (rolled): a die shows {value}"


def test_a_die_that_is_not_a_whole_number_is_refused():
    record = honest(8)
    at = next(i for i, e in enumerate(events(record)) if e["type"] == "rolled")
    events(record)[at]["dice"] = [True, 3]
    problem = refused_at(record, at + 1)
    assert problem.startswith(f"event {at + 1} (rolled): 'dice' is [True, 3]; it must be")


def test_a_rerolled_die_out_of_range_is_refused_at_its_own_event():
    for seed in range(200):
        record = honest(seed)
        log = events(record)
        rerolls = [
            i for i, e in enumerate(log) if e["type"] == "trick_played" and e["half"] == "reroll"
        ]
        if rerolls:
            break
    at = rerolls[0] + 1
    log[at]["dice"][0] = 9
    assert refused_at(record, at + 1) == f"event {at + 1} (rolled): a die shows 9"


def test_a_round_dealt_from_elsewhere_than_the_top_of_the_deck_is_refused():
    record = honest(9)
    log = events(record)
    at = [i for i, e in enumerate(log) if e["type"] == "round_started"][1]
    state = replay(log[:at])
    log[at]["tavern"][0] = state.deck[10]  # a card still face down, not one of the top six
    problem = refused_at(record, at + 1)
    assert problem.startswith(f"event {at + 1} (round_started): tavern is ")
    assert problem.endswith(f"the rules give {list(state.deck[:6])!r}")


def test_a_first_tavern_that_is_not_the_top_of_the_deck_is_refused():
    record = honest(9)
    first = events(record)[1]
    first["tavern"] = first["tavern"][::-1]
    assert refused_at(record, 2).startswith("event 2 (round_started): tavern is ")


def test_a_deck_that_is_not_the_tavern_cards_is_refused():
    record = honest(9)
    deck = events(record)[0]["deck"]
    deck[0] = deck[1]
    problem = refused_at(record, 1)
    assert problem == "event 1 (game_started): the deck is not the 48 tavern cards, each once"


def test_a_trick_card_the_player_does_not_hold_is_refused():
    for seed in range(200):
        record = honest(seed)
        log = events(record)
        tricks = [i for i, e in enumerate(log) if e["type"] == "trick_played"]
        if tricks:
            break
    at = tricks[0]
    state = replay(log[:at])
    player = state.players[log[at]["seat"]]
    foreign = next(f"T{n}" for n in range(1, 9) if f"T{n}" not in player.tricks)
    log[at]["card"] = foreign
    problem = refused_at(record, at + 1)
    assert problem == (
        f"event {at + 1} (trick_played): no_such_trick: You hold no usable trick card {foreign!r}."
    )


def test_a_second_trick_in_a_round_is_refused():
    record = honest(10, extra_wild=True)
    log = events(record)
    at = next(i for i, e in enumerate(log) if e["type"] == "trick_played")
    state = replay(log[:at])
    assert state.players[log[at]["seat"]].trick_used is False
    # the same card again, right after it was used, with the captain already out
    record["events"].insert(at + 1, {"seq": 0, "at": "", "event": dict(log[at])})
    problem = refused_at(renumber(record), at + 2)
    assert problem.startswith(f"event {at + 2} (trick_played): ")


def test_a_wrong_winner_is_refused_at_the_result():
    record = honest(11)
    claimed = record["result"]["winner"]
    record["result"]["winner"] = 0 if claimed != 0 else 1
    check = check_record(record)
    assert not check.ok and check.bad_seq is None
    assert check.problems == (
        f"winner: recorded {record['result']['winner']!r}, replayed {claimed!r}",
    )
    assert check.replayed["winner"] == claimed


def test_a_winner_given_as_true_is_not_seat_1():
    record = honest(11)
    record["result"]["winner"] = True if record["result"]["winner"] == 1 else 1
    assert not check_record(record).ok


def test_a_wrong_status_and_variant_are_refused():
    record = honest(11)
    record["result"]["status"] = "annulled"
    record["extra_wild"] = True
    check = check_record(record)
    assert check.problems == (
        "status: recorded 'annulled', replayed 'finished'",
        "the variant differs from the game's first event",
    )


def test_a_resignation_for_the_wrong_player_is_refused():
    state, log = play(3, moves=30)
    state, log = end(state, log, decide(state, 1, {"type": "resign"}))
    record = record_of(state, log)
    events(record)[-1]["winner"] = 1
    problem = refused_at(record, len(log))
    assert problem == f"event {len(log)} (game_ended): winner is 1; the rules give 0"


def test_an_abort_after_both_players_moved_is_refused():
    state, log = play(4, moves=30)
    assert not can_abort(state, legacy_abort=True)
    forged = {"type": "game_ended", "reason": "aborted", "winner": None, "seat": 0}
    record = record_of(*end(state, log, [forged]))
    problem = refused_at(record, len(log) + 1)
    assert problem.startswith(f"event {len(log) + 1} (game_ended): cannot_abort: ")


def test_events_after_the_end_and_a_completion_without_shanghai_are_refused():
    record = honest(12)
    record["events"].append({"seq": 0, "event": {"type": "rolled", "seat": 0, "dice": [1, 2]}})
    n = len(record["events"])
    assert "nothing may follow" in refused_at(renumber(record), n)
    state, log = play(12, moves=20)
    forged = {"type": "game_ended", "reason": "completed"}
    record = record_of(*end(state, log, [forged]))
    problem = refused_at(record, len(log) + 1)
    assert problem.endswith("completed only by the last round's Shanghai")


def test_a_log_that_stops_early_is_short_not_illegal():
    record = honest(13)
    del record["events"][-1]  # the game_ended that the last Shanghai causes
    check = check_record(record)
    assert check.problems == ("the events do not reach the end of the game",)
    assert check.bad_seq is None


def test_a_gap_in_the_numbering_names_the_entry():
    record = honest(13)
    record["events"][3]["seq"] = 99
    check = check_record(record)
    assert not check.ok and check.bad_seq == 99
    assert check.problems[0].endswith("without gaps: entry 4 has seq 99")


# -- malformed records ------------------------------------------------------------------


def malformed_cases():
    def edit(change):
        record = honest(14)
        change(record)
        return record

    def set_event(index, **changes):
        return lambda r: r["events"][index]["event"].update(changes)

    return [
        ([], "a game record is a JSON object"),
        ("text", "a game record is a JSON object"),
        ({"format": "something-else", "events": []}, "not a Shanghaien game record"),
        (edit(lambda r: r.update(format_version=2)), "format_version 2 is unknown"),
        (edit(lambda r: r.update(events={"1": {}})), "no list of events"),
        (edit(lambda r: r.pop("events")), "no list of events"),
        (edit(lambda r: r.update(events=[])), "no list of events"),
        (edit(lambda r: r["events"].__setitem__(5, 7)), "entry 6 is not an object"),
        (edit(lambda r: r["events"][5].pop("event")), "event 6: the entry has no 'event'"),
        (edit(lambda r: r["events"][5].pop("seq")), "entry 6 has seq None"),
        (edit(set_event(5, type="teleported")), "event 6: unknown event type 'teleported'"),
        (edit(lambda r: r["events"][5].__setitem__("event", None)), "the event is not an object"),
        (
            edit(lambda r: r["events"][2]["event"].pop("seat")),
            "event 3 (rolled): 'seat' is missing",
        ),
        (edit(set_event(2, seat="0")), "event 3 (rolled): 'seat' is '0'; it must be a seat"),
        (edit(set_event(2, seat=1.0)), "'seat' is 1.0; it must be a seat"),
        (edit(set_event(2, dice=[3])), "'dice' is [3]; it must be a list of two"),
        (edit(set_event(2, dice="34")), "'dice' is '34'"),
        (edit(set_event(0, deck=None)), "event 1 (game_started): 'deck' is None"),
        (edit(set_event(0, first_player=2)), "event 1 (game_started): first_player is 2"),
        (edit(set_event(0, extra_wild="no")), "'extra_wild' is 'no'"),
        (edit(set_event(1, tavern=[1, 2])), "event 2 (round_started): 'tavern' is [1, 2]"),
        (edit(set_event(-1, reason="victory")), "unknown reason 'victory'"),
        (edit(set_event(2, bonus=1)), "event 3 (rolled): 'bonus' is not part of this event"),
        (edit(lambda r: r.update(result=None)), "the record holds no result object"),
        (edit(lambda r: r["events"].insert(0, r["events"][0])), "entry 2 has seq 1"),
    ]


@pytest.mark.parametrize(("record", "expected"), malformed_cases())
def test_a_malformed_record_gets_a_sentence_not_an_exception(record, expected):
    check = check_record(record)
    assert not check.ok
    assert any(expected in problem for problem in check.problems), check.problems
    assert not any("cannot be checked" in problem for problem in check.problems)


# -- the command line -------------------------------------------------------------------


def run_cli(path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "games.rules.records", str(path)],
        cwd=ROOT,
        capture_output=True,
        timeout=30,
    )


def test_the_command_line_accepts_an_honest_record(tmp_path):
    path = tmp_path / "game.json"
    path.write_text(json.dumps(honest(15)))
    out = run_cli(path)
    assert out.returncode == 0, out
    assert out.stdout.decode().splitlines()[-2:] == [
        "the record is legal and consistent",
        "the deck and dice are NOT verified: the record has no fairness data",
    ]


@pytest.mark.parametrize(
    ("content", "says"),
    [
        (b"{not json", b"is not JSON"),
        (b"\xff\xfe\x00garbage", b"is not UTF-8"),
        (b"[1, 2, 3]", b"a game record is a JSON object"),
        (b'{"events": {"seq": 1}}', b"no list of events"),
        (b'{"events": [{"seq": 1}]}', b"the entry has no 'event'"),
        (b'{"events": [{"seq": 1, "event": {"type": "moved"}}]}', b"unknown event type"),
        (None, b"cannot read"),
    ],
)
def test_the_command_line_refuses_a_malformed_file_without_a_traceback(tmp_path, content, says):
    path = tmp_path / "game.json"
    if content is not None:
        path.write_bytes(content)
    out = run_cli(path)
    assert out.returncode == 1
    assert b"Traceback" not in out.stderr + out.stdout
    assert says in out.stderr + out.stdout


def test_the_command_line_names_a_forged_die(tmp_path, capsys):
    record = honest(16)
    at = next(i for i, e in enumerate(events(record)) if e["type"] == "rolled")
    events(record)[at]["dice"][0] = 0
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record))
    assert main([str(path)]) == 1
    printed = capsys.readouterr().out.splitlines()
    assert printed == [
        f"problem: event {at + 1} (rolled): a die shows 0",
        "the record does NOT check out",
    ]


# -- properties -------------------------------------------------------------------------


@FEW
@given(
    seed=st.integers(0, 10**6),
    extra_wild=st.booleans(),
    moves=st.none() | st.integers(0, 80),
    ending=st.sampled_from(["resign", "timeout", "adjudicated", "annulled"]),
)
def test_random_honest_games_check(seed, extra_wild, moves, ending):
    state, log = play(seed, extra_wild, moves)
    if not state.finished:
        if ending == "resign":
            new = decide(state, seed % 2, {"type": "resign"})
        else:
            new = end_game(state, ending, None if ending == "annulled" else seed % 2)
        state, log = end(state, log, new)
    check = check_record(record_of(state, log))
    assert check.ok and check.bad_seq is None, check.problems


@FEW
@given(
    seed=st.integers(0, 10**6),
    pick=st.integers(0, 10**6),
    die=st.sampled_from([0, 1]),
    value=st.one_of(st.integers(max_value=0), st.integers(min_value=7)),
)
def test_one_die_out_of_range_is_refused_at_its_event(seed, pick, die, value):
    record = honest(seed)
    rolls = [i for i, e in enumerate(events(record)) if e["type"] == "rolled"]
    at = rolls[pick % len(rolls)]
    events(record)[at]["dice"][die] = value
    check = check_record(record)
    assert not check.ok and check.bad_seq == at + 1
    assert check.problems == (f"event {at + 1} (rolled): a die shows {value}",)


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 60) | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner),
    max_leaves=6,
)


@FEW
@given(pick=st.integers(0, 10**6), key=st.text(max_size=8), value=JSON, drop=st.booleans())
def test_any_json_in_place_of_one_field_gets_an_answer(pick, key, value, drop):
    record = copy.deepcopy(SAMPLE)
    event = events(record)[pick % len(record["events"])]
    keys = sorted(event)
    if drop:
        event.pop(keys[pick % len(keys)])
    else:
        event[keys[pick % len(keys)] if pick % 2 else key] = value
    check = check_record(record)
    assert not any("cannot be checked" in problem for problem in check.problems)


SAMPLE = honest(17, extra_wild=True)
