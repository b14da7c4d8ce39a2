"""Properties over many random games: hypothesis picks the seeds and the moves."""

import json
import random
from dataclasses import replace

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.rules import (
    CARDS,
    IllegalCommand,
    card_locations,
    decide,
    evolve,
    legal_commands,
    new_game,
    player_view,
    random_command,
    replay,
    state_from_json,
    state_to_json,
)
from games.rules.cards import HALVES, NATIONS
from games.rules.state import DICE_PER_PLAYER

GAMES = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def every_command(state):
    """Every well-formed command that could ever be asked of this game."""
    commands = [{"type": t} for t in ("roll", "shanghai", "resign", "abort")]
    commands += [{"type": "direction", "one_at": e} for e in ("left", "right")]
    commands += [{"type": "place", "die": d} for d in (0, 1)]
    tricks = [c for c in CARDS if CARDS[c].kind == "trick"]
    for card in tricks:
        for half in HALVES:
            base = {"type": "trick", "card": card, "half": half}
            if half == "wild":
                commands += [{**base, "nation": n} for n in NATIONS]
            elif half == "adjust":
                commands += [{**base, "die": d, "delta": x} for d in (0, 1) for x in (1, -1)]
            else:
                commands.append(base)
    return commands


def play(seed, extra_wild, check=lambda state, events: None):
    rng = random.Random(seed)
    state, events = new_game(rng, extra_wild=extra_wild)
    while not state.finished:
        seat = state.turn
        new = decide(state, seat, random_command(state, seat, rng), rng)
        for event in new:
            state = evolve(state, event)
        events += new
        check(state, events)
    return state, events


@GAMES
@given(seed=st.integers(0, 2**32), extra_wild=st.booleans())
def test_every_game_ends_after_round_8_with_all_cards_shared_out(seed, extra_wild):
    state, events = play(seed, extra_wild)
    assert state.round == 8 and state.result.reason == "completed"
    assert state.deck == () and state.tavern == (None,) * 6
    assert sum(e["type"] == "round_started" for e in events) == 8
    where = card_locations(state)
    assert not {place for place in where.values() if place in ("deck", "tavern")}


@GAMES
@given(seed=st.integers(0, 2**32), extra_wild=st.booleans())
def test_cards_are_always_in_one_place_and_each_player_owns_six_dice(seed, extra_wild):
    def check(state, events):
        card_locations(state)  # raises if a card is lost or in two places
        for player in state.players:
            assert all(n >= 0 for n in player.dice)
            assert player.supply + player.placed == DICE_PER_PLAYER and player.supply >= 0

    play(seed, extra_wild, check)


@GAMES
@given(seed=st.integers(0, 2**32), extra_wild=st.booleans())
def test_replaying_the_events_rebuilds_the_state_and_the_snapshot_round_trips(seed, extra_wild):
    def check(state, events):
        assert replay(events) == state
        assert state_from_json(json.loads(json.dumps(state_to_json(state)))) == state

    play(seed, extra_wild, check)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32), extra_wild=st.booleans())
def test_decide_accepts_exactly_the_legal_commands(seed, extra_wild):
    def check(state, events):
        for seat in (0, 1):
            legal = legal_commands(state, seat)
            for command in every_command(state):
                try:
                    decide(state, seat, command, random.Random(0))
                except IllegalCommand:
                    assert command not in legal, (command, state)
                else:
                    assert command in legal, (command, state)

    play(seed, extra_wild, check)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32), extra_wild=st.booleans())
def test_no_view_reveals_the_deck_order(seed, extra_wild):
    def check(state, events):
        shuffled = list(state.deck)
        random.Random(seed).shuffle(shuffled)
        other = replace(state, deck=tuple(shuffled))
        for seat in (0, 1):
            view = player_view(state, seat)
            assert view == player_view(other, seat)
            assert json.loads(json.dumps(view)) == view

    play(seed, extra_wild, check)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32), moves=st.integers(0, 120), seat=st.sampled_from([0, 1]))
def test_a_resignation_at_any_point_ends_the_game_for_the_other_player(seed, moves, seat):
    rng = random.Random(seed)
    state, _ = new_game(rng)
    for _ in range(moves):
        if state.finished:
            break
        for event in decide(state, state.turn, random_command(state, state.turn, rng), rng):
            state = evolve(state, event)
    if state.finished:
        return
    for event in decide(state, seat, {"type": "resign"}):
        state = evolve(state, event)
    assert state.result.winner == 1 - seat and state.result.reason == "resignation"


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), steps=st.integers(0, 120))
def test_the_snapshot_is_what_a_json_round_trip_of_the_state_gives(seed, steps):
    """state_to_json gives plain JSON values: the same before and after a round trip."""
    rng = random.Random(seed)
    state, _ = new_game(rng, extra_wild=seed % 2 == 1)
    for _ in range(steps):
        if state.turn is None:
            break
        command = random_command(state, state.turn, rng)
        for event in decide(state, state.turn, command, rng):
            state = evolve(state, event)
    snapshot = state_to_json(state)
    assert json.loads(json.dumps(snapshot)) == snapshot
    assert state_from_json(snapshot) == state
