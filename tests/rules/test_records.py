"""games.rules.records checks an exported game with the engine alone."""

import random

from games.rules import decide, evolve, new_game, random_command
from games.rules.records import check_record


def record_of_a_game(seed: int) -> dict:
    rng = random.Random(seed)
    state, events = new_game(rng)
    log = list(events)
    while state.result is None:
        command = random_command(state, state.turn, rng)
        new = decide(state, state.turn, command, rng)
        for event in new:
            state = evolve(state, event)
        log.extend(new)
    result = state.result
    return {
        "extra_wild": False,
        "result": {
            "reason": result.reason,
            "winner": result.winner,
            "scores": [s.total for s in result.scores],
        },
        "events": [{"seq": i, "event": e} for i, e in enumerate(log, start=1)],
    }


def test_a_faithful_record_checks_and_a_false_claim_does_not():
    record = record_of_a_game(11)
    check = check_record(record)
    assert check.ok and check.replayed == record["result"]
    record["result"]["winner"] = None if record["result"]["winner"] is not None else 0
    check = check_record(record)
    assert not check.ok and check.problems[0].startswith("winner: recorded")


def test_gaps_in_the_numbering_are_reported():
    record = record_of_a_game(12)
    record["events"][3]["seq"] = 99
    assert "without gaps" in check_record(record).problems[0]
