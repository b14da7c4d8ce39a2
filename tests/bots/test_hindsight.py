"""The analysis after the game (games/bots/hindsight.py): the decisions read back from the
log, the captain's estimates before and after each, forced moves skipped, the same
numbers every time, in chunks or in one go, and pure Python."""

import pathlib
import random
import subprocess
import sys

import pytest

from games.bots import choose
from games.bots.hindsight import analyse, analyse_decision, decisions
from games.bots.players import playable
from games.rules import decide, evolve, legal_commands, new_game

ROOT = pathlib.Path(__file__).resolve().parents[2]


def played_game(seed: int, levels=("deckhand", "boatswain"), extra_wild=True):
    """A whole game between two bots: its events and each command with its state."""
    rng = random.Random(seed)
    state, events = new_game(rng, extra_wild=extra_wild)
    moves = []
    while not state.finished:
        seat = state.turn
        command = choose(state, seat, levels[seat], rng)
        moves.append((state, seat, command))
        for event in decide(state, seat, command, rng):
            events.append(event)
            state = evolve(state, event)
    return events, moves


@pytest.fixture(scope="module")
def game():
    return played_game(11)


def same_command(state, a: dict, b: dict) -> bool:
    """Equal, or placing dice of the same value (a double: either die is the same move)."""
    if a["type"] == b["type"] == "place":
        return state.roll[a["die"]] == state.roll[b["die"]]
    return a == b


def test_the_decisions_are_the_commands_played_in_the_states_they_were_played_in(game):
    events, moves = game
    found = decisions(events)
    assert len(found) == len(moves)
    for decision, (state, seat, command) in zip(found, moves, strict=True):
        assert decision.state == state and decision.seat == seat
        assert same_command(state, decision.command, command)
        assert decision.command in legal_commands(state, seat)
        assert events[decision.step - 1]["seat"] == seat  # the step opens the command
    assert [d.index for d in found] == list(range(len(found)))


def test_a_resignation_and_the_server_s_endings_are_no_decisions():
    events, _ = played_game(3)
    short = events[:40]
    short.append({"type": "game_ended", "reason": "resignation", "winner": 0, "seat": 1})
    assert len(decisions(short)) == len(decisions(events[:40]))


def test_estimates_are_chances_and_the_loss_is_what_the_move_cost(game):
    events, _ = game
    found = decisions(events)
    results = analyse(found, "g11", 0, 40)
    assert results
    for r in results:
        assert 0 <= r["after"] <= r["before"] <= 1
        assert r["loss"] >= 0 and r["loss"] == pytest.approx(r["before"] - r["after"], abs=1e-9)
        decision = found[r["index"]]
        options = playable(decision.state, decision.seat)
        assert r["best"] in options and r["played"] == decision.command
        assert r["step"] == decision.step and r["seat"] == decision.seat
        assert r["round"] == decision.state.round
        if r["best"] == r["played"]:
            assert r["loss"] == 0


def test_decisions_with_one_playable_command_are_skipped(game):
    events, _ = game
    found = decisions(events)[:40]
    analysed = {r["index"] for r in analyse(found, "g11")}
    forced = {d.index for d in found if len(playable(d.state, d.seat)) == 1}
    assert forced and analysed
    assert analysed == {d.index for d in found} - forced
    assert found[0].command == {"type": "roll"} and 0 in forced  # the first roll of the game
    assert analyse_decision(found[0], "g11") is None


def test_the_same_game_and_decision_give_the_same_numbers(game):
    events, _ = game
    found = decisions(events)
    first = analyse(found, 42, 10, 30)
    assert analyse(found, 42, 10, 30) == first
    assert analyse(decisions(events), 42, 10, 30) == first  # read from the log again
    assert analyse(found, 43, 10, 30) != first  # another game's id: other playouts


def test_analysed_in_chunks_it_is_the_same_as_in_one_go(game):
    events, _ = game
    found = decisions(events)
    whole = analyse(found, 7, 0, 45)
    chunks = analyse(found, 7, 0, 8) + analyse(found, 7, 8, 30) + analyse(found, 7, 30, 45)
    assert chunks == whole


def test_a_log_the_rules_refuse_is_an_error():
    events, _ = played_game(5)
    placed = next(i for i, e in enumerate(events) if e["type"] == "placed")
    broken = [*events[:placed], {**events[placed], "values": [7]}]
    with pytest.raises(ValueError):
        decisions(broken)


def test_the_analysis_imports_no_django_module():
    code = (
        "import sys, games.bots.hindsight\n"
        "print(','.join(sorted(m for m in sys.modules if m.split('.')[0] == 'django')))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == ""


def test_the_margin_is_the_95_percent_half_width_of_the_paired_differences():
    from games.bots.hindsight import margin

    same = [0.5, 0.25, 0.75]
    assert margin(same, same) == 0  # the command played was the best
    assert margin([1, 1, 1, 1], [0, 0, 0, 0]) == 0  # every pair differs by as much
    # differences 1, 0, 1, 0: mean ½, sample variance ⅓, standard error √(⅓/4)
    assert margin([1, 0, 1, 0], [0, 0, 0, 0]) == pytest.approx(1.96 * (1 / 12) ** 0.5)
    # paired, not pooled: the same spread on both sides, moved together, is no doubt
    assert margin([0.9, 0.1, 0.5], [0.8, 0.0, 0.4]) == pytest.approx(0, abs=1e-9)


def test_each_estimate_says_how_sure_it_is(game):
    events, _ = game
    results = analyse(decisions(events), "g11", 0, 30)
    assert results
    for r in results:
        assert r["margin"] >= 0
        if r["best"] == r["played"]:
            assert r["loss"] == 0 and r["margin"] == 0
    assert any(r["margin"] > 0 for r in results)
