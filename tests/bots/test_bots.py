"""The bots (games/bots): only legal commands, never giving up, the same command for the
same rng, blind to the deck's order, and pure Python."""

import pathlib
import random
import subprocess
import sys
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.bots import BASELINES, LEVELS, choose
from games.rules import decide, evolve, legal_commands, new_game, random_command

BOTS = pathlib.Path(__file__).resolve().parents[2] / "games" / "bots"


def position(seed: int, moves: int, extra_wild: bool):
    """A game ``moves`` random commands in (or over, if it ended before)."""
    rng = random.Random(seed)
    state, _ = new_game(rng, extra_wild=extra_wild)
    for _ in range(moves):
        if state.finished:
            break
        seat = state.turn
        for event in decide(state, seat, random_command(state, seat, rng), rng):
            state = evolve(state, event)
    return state


positions = st.builds(
    position,
    seed=st.integers(0, 10**6),
    moves=st.integers(0, 200),
    extra_wild=st.booleans(),
).filter(lambda state: not state.finished)


@settings(max_examples=150, deadline=None)
@given(state=positions, level=st.sampled_from(LEVELS + BASELINES), seed=st.integers(0, 10**6))
def test_a_bot_plays_only_legal_commands_and_never_gives_up(state, level, seed):
    command = choose(state, state.turn, level, random.Random(seed))
    assert command in legal_commands(state, state.turn)
    assert command["type"] not in ("resign", "abort")


@settings(max_examples=40, deadline=None)
@given(state=positions, level=st.sampled_from(LEVELS), seed=st.integers(0, 10**6))
def test_the_same_rng_gives_the_same_command(state, level, seed):
    first = choose(state, state.turn, level, random.Random(seed))
    assert choose(state, state.turn, level, random.Random(seed)) == first


@settings(max_examples=40, deadline=None)
@given(state=positions, level=st.sampled_from(LEVELS), seed=st.integers(0, 10**6))
def test_a_bot_cannot_see_the_deck_s_order(state, level, seed):
    """Two games that differ only in the order of the face-down deck get the same command."""
    other = replace(state, deck=tuple(random.Random(seed).sample(state.deck, len(state.deck))))
    assert choose(state, state.turn, level, random.Random(seed)) == choose(
        other, other.turn, level, random.Random(seed)
    )


@pytest.mark.parametrize("level", LEVELS)
def test_a_whole_game_against_a_random_player_ends(level):
    rng = random.Random(7)
    state, _ = new_game(rng, extra_wild=True)
    while not state.finished:
        seat = state.turn
        command = choose(state, seat, level, rng) if seat == 0 else random_command(state, 1, rng)
        for event in decide(state, seat, command, rng):
            state = evolve(state, event)
    assert state.result.reason == "completed"


def test_a_bot_refuses_a_seat_that_is_not_on_turn_and_an_unknown_level():
    state = position(1, 5, False)
    with pytest.raises(ValueError):
        choose(state, 1 - state.turn, "captain", random.Random(1))
    with pytest.raises(ValueError):
        choose(state, state.turn, "commodore", random.Random(1))


def test_importing_the_bots_imports_no_django_module():
    code = (
        "import sys, games.bots\n"
        "print(','.join(sorted(m for m in sys.modules if m.split('.')[0] == 'django')))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=BOTS.parents[1],
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.strip() == ""
