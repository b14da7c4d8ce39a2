"""The judgement's fit (bench/judgement_fit.py): the parts it takes a lead apart into add
up to the lead, its regression finds the weights a made-up outcome was drawn with, and
the command line runs end to end."""

import math
import random
from dataclasses import replace

import pytest

from bench import judgement_fit
from games.bots import choose
from games.bots.evaluation import KEEN, SHARP, expected_lead
from games.rules import decide, evolve, new_game


def round_starts(count: int, seed: int):
    """The states at the start of rounds 2 to 7 of games between boatswains."""
    found, rng = [], random.Random(seed)
    while len(found) < count:
        state, _ = new_game(rng, extra_wild=True)
        seen = state.round
        while not state.finished and len(found) < count:
            if state.round != seen:
                seen = state.round
                if state.round < 8:
                    found.append(state)
            command = choose(state, state.turn, "boatswain", rng)
            for event in decide(state, state.turn, command, rng):
                state = evolve(state, event)
    return found


@pytest.mark.parametrize("judgement", [SHARP, KEEN])
def test_the_parts_add_up_to_the_judgements_lead(judgement):
    tricks_seen = 0
    for state in round_starts(12, seed=3):
        for seat in (0, 1):
            parts = judgement_fit.parts(state, seat, judgement)
            tricks_seen += parts["tricks"] != 0
            assert parts["start"] == (1 if state.start_player == seat else -1)
            rebuilt = (
                parts["crews"]
                + judgement.tavern * parts["tavern"]
                + parts["tricks"] * (1 + judgement.option)
            )
            assert rebuilt == pytest.approx(expected_lead(state, seat, judgement))
            other = judgement_fit.parts(state, 1 - seat, judgement)
            assert other["crews"] == pytest.approx(-parts["crews"])
    assert tricks_seen


def test_the_regression_finds_the_weights_the_outcomes_were_drawn_with():
    rng, truth = random.Random(8), (0.2, 0.1, 0.6, 0.3)
    rows = []
    for _ in range(6000):
        row = {"crews": rng.gauss(0, 6), "tavern": rng.gauss(0, 3)}
        row["tricks"], row["start"] = rng.choice((-2, -1, 0, 1, 2)), rng.choice((-1, 1))
        z = sum(w * row[p] for w, p in zip(truth, judgement_fit.PARTS, strict=True))
        row["won"] = float(rng.random() < 1 / (1 + math.exp(-z)))
        rows.append(row)
    found = judgement_fit.logistic(rows, judgement_fit.PARTS)
    for got, meant in zip(found, truth, strict=True):
        assert got == pytest.approx(meant, abs=0.08)
    assert judgement_fit.log_loss(rows, lambda row: 0.5) == pytest.approx(math.log(2))


def test_a_judgement_from_its_fields():
    assert judgement_fit.judgement_from("") == KEEN
    tried = judgement_fit.judgement_from("option=0.4, tavern=1,last_round_tricks=false")
    assert tried == replace(KEEN, option=0.4, tavern=1.0, last_round_tricks=False)
    for bad in ("option", "colour=2", "tavern=much"):
        with pytest.raises(ValueError):
            judgement_fit.judgement_from(bad)


def test_the_command_line_end_to_end(capsys):
    status = judgement_fit.main(
        ["--games", "10", "--processes", "1", "--duel", "option=0.4", "--duel-games", "4"]
    )
    assert status == 0
    out = capsys.readouterr().out
    table = [line.split() for line in out.splitlines() if line[:5].strip().isdigit()]
    assert [int(line[0]) for line in table] == list(range(2, 9))
    assert all(int(line[1]) == 10 for line in table)  # each game has every round's start
    assert "option=0.4 against judged_start:" in out and "4 games" in out
    with pytest.raises(SystemExit):
        judgement_fit.main(["--games", "0", "--duel", "colour=2"])
