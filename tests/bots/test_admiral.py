"""The admiral's search (games/bots/admiral.py): candidates counted once per outcome,
playouts spent by successive halving on the commands still in the running, a budget
that cuts the search short, and the fitted chance to win it judges by."""

import random
import time
from dataclasses import replace

import pytest

from games.bots import admiral, choose
from games.bots.evaluation import KEEN, SHARP, calibrated_value, expected_lead, start_worth
from games.bots.policies import judged, judged_start, keen
from games.rules import decide, evolve, legal_commands, new_game
from games.rules.state import PLACEMENT, TURN


def positions(phase: str, count: int, seed: int = 7):
    """States of games between boatswains where the mover is asked ``phase``."""
    found, rng = [], random.Random(seed)
    while len(found) < count:
        state, _ = new_game(rng, extra_wild=True)
        while not state.finished and len(found) < count:
            if state.phase == phase and len(legal_commands(state, state.turn)) > 2:
                found.append(state)
            command = choose(state, state.turn, "boatswain", rng)
            for event in decide(state, state.turn, command, rng):
                state = evolve(state, event)
    return found


def test_a_double_is_one_choice():
    state = positions(PLACEMENT, 1)[0]
    double = replace(state, roll=(4, 4))
    places = [c for c in admiral.candidates(double, double.turn) if c["type"] == "place"]
    assert len(places) == 1  # either die of a double is the same move
    other = replace(state, roll=(2, 5))
    assert len([c for c in admiral.candidates(other, other.turn) if c["type"] == "place"]) == 2


def test_the_playouts_go_to_the_commands_still_in_the_running():
    for state in positions(PLACEMENT, 4):
        commands = admiral.candidates(state, state.turn)
        if len(commands) < 3:
            continue
        weighing = admiral.weigh(state, state.turn, commands, random.Random(1), playouts=96)
        counts = [len(r) for r in weighing.results]
        assert sum(counts) <= 96 + len(commands)
        kept = max(counts)
        assert min(counts) < kept  # some were dropped after a pass
        # those dropped after the first pass had no better average then than any kept
        first = min(counts)
        means = [sum(results[:first]) / first for results in weighing.results]
        dropped = [means[i] for i, n in enumerate(counts) if n == first]
        carried = [means[i] for i, n in enumerate(counts) if n > first]
        assert max(dropped) <= min(carried)
        return
    raise AssertionError("no position with three candidates")


def test_the_same_playouts_for_every_command():
    state = positions(TURN, 1)[0]
    commands = admiral.candidates(state, state.turn)
    a = admiral.weigh(state, state.turn, commands, random.Random(3), playouts=40)
    b = admiral.weigh(state, state.turn, commands, random.Random(3), playouts=40)
    assert a.results == b.results and a.seeds == b.seeds
    assert len(set(a.seeds)) == len(a.seeds)


def test_a_deadline_cuts_the_search_short_and_still_plays_a_legal_command():
    for state in positions(PLACEMENT, 3):
        began = time.process_time()
        command = choose(state, state.turn, "admiral", random.Random(2), deadline=0.0)
        assert command in legal_commands(state, state.turn)
        whole = time.process_time()
        choose(state, state.turn, "admiral", random.Random(2))
        # one pass of the halving against all of them: the cut search is the shorter
        assert whole - began < 0.7 * (time.process_time() - whole)


def test_the_fitted_chance_counts_who_begins_the_next_round():
    state = positions(TURN, 1)[0]
    start = state.start_player
    mine = calibrated_value(state, start)
    theirs = calibrated_value(state, 1 - start)
    assert 0 < mine < 1 and mine + theirs == pytest.approx(1)  # the same from either side
    swapped = replace(state, start_player=1 - start)
    assert calibrated_value(swapped, start) < mine  # beginning the round is worth something


def test_the_playouts_count_who_begins_the_next_round():
    """Counting the next round's start (as the admiral's playouts do, ``keen`` being
    ``judged_start`` by the admiral's judgement), a Shanghai is called less readily than
    by the captain's policy: never where that one rolls, and in some positions before
    the last round it rolls where that one calls, as calling hands the start over."""
    assert admiral.POLICY is keen and keen in admiral.OPPONENTS
    assert start_worth(9) == 0 and all(start_worth(r) > 0 for r in range(1, 9))
    rng, held_back = random.Random(2), 0
    for state in positions(TURN, 150, seed=5):
        commands = legal_commands(state, state.turn)
        if {"type": "shanghai"} not in commands or {"type": "roll"} not in commands:
            continue
        plain = judged(state, state.turn, commands, rng)
        wary = judged_start(state, state.turn, commands, rng)
        if plain != wary:
            assert plain["type"] == "shanghai" and wary["type"] == "roll"
            assert state.round < 8
            held_back += 1
    assert held_back >= 20  # 46 of the 150 here


def test_the_admirals_judgement_keeps_trick_cards_in_hand_worth_using_in_the_last_round():
    state = positions(TURN, 1)[0]  # with the extra wild card, each holds a trick card
    seat = state.turn
    assert state.players[seat].tricks

    def used(state):
        players = list(state.players)
        players[seat] = replace(players[seat], trick_used=True)
        return replace(state, players=tuple(players))

    held = len(state.players[seat].tricks)
    last = replace(state, round=8)
    assert expected_lead(last, seat, KEEN) - expected_lead(used(last), seat, KEEN) == (
        pytest.approx(held * KEEN.option)
    )
    # the others count only their point in the last round; before it, the round's
    # trick spent, the cards in hand are still for the rounds to come
    assert expected_lead(last, seat, SHARP) == expected_lead(used(last), seat, SHARP)
    assert expected_lead(state, seat, KEEN) == expected_lead(used(state), seat, KEEN)
    assert expected_lead(state, seat, KEEN) > expected_lead(last, seat, replace(KEEN, option=0))


def test_the_admirals_judgement_counts_the_tavern_at_its_weight():
    assert KEEN.tavern < 1 == SHARP.tavern
    weighed = 0
    for state in positions(PLACEMENT, 30, seed=11):
        seat = state.turn
        crews = expected_lead(state, seat, replace(KEEN, tavern=0))
        whole = expected_lead(state, seat, replace(KEEN, tavern=1))
        weighed += crews != whole  # an even tavern (no dice yet) is worth nothing to either
        assert expected_lead(state, seat, KEEN) == pytest.approx(
            crews + KEEN.tavern * (whole - crews)
        )
    assert weighed >= 10


def test_the_admirals_playouts_spend_trick_cards_less_readily():
    """Valuing a trick card in hand more, ``keen`` plays one in fewer positions where
    ``judged_start`` would, yet still plays them."""
    rng, tricks = random.Random(1), {keen: 0, judged_start: 0}
    found = [
        state
        for state in positions(PLACEMENT, 400, seed=5)
        if any(c["type"] == "trick" for c in legal_commands(state, state.turn))
    ]
    assert len(found) >= 100
    for state in found:
        commands = [c for c in legal_commands(state, state.turn) if c["type"] != "resign"]
        for policy in tricks:
            tricks[policy] += policy(state, state.turn, commands, rng)["type"] == "trick"
    assert 0 < tricks[keen] < 0.7 * tricks[judged_start]  # 26 against 55 in 300 positions
