"""Glicko-2 against Glickman's worked example ("Example of the Glicko-2 system")."""

import ast
import math
from pathlib import Path

import pytest

from ratings import glicko2
from ratings.glicko2 import Rating, idle, rate

PLAYER = Rating(1500, 200, 0.06)
RESULTS = [(Rating(1400, 30), 1), (Rating(1550, 100), 0), (Rating(1700, 300), 0)]


def test_the_papers_example():
    after = rate(PLAYER, RESULTS)
    # The paper's answer: r' = 1464.06, RD' = 151.52, σ' = 0.05999. It rounds each step
    # to four decimals on the Glicko-2 scale (μ' = -0.2069, φ' = 0.8722), so an exact
    # computation agrees with it to the paper's precision, not digit for digit.
    mu = (after.rating - 1500) / glicko2.SCALE
    phi = after.deviation / glicko2.SCALE
    assert round(mu, 4) == -0.2069
    assert round(phi, 4) == 0.8722
    assert round(glicko2.SCALE * round(mu, 4) + 1500, 2) == 1464.06  # the paper's last step
    assert round(after.deviation, 2) == 151.52
    assert after.volatility == pytest.approx(0.05999, abs=0.00001)
    assert after.rating == pytest.approx(1464.06, abs=0.01)
    # and the exact values, so that any change to the arithmetic shows
    assert after.rating == pytest.approx(1464.05067, abs=1e-5)
    assert after.deviation == pytest.approx(151.51652, abs=1e-5)
    assert after.volatility == pytest.approx(0.0599960, abs=1e-7)


def test_the_volatility_step_finds_the_root_a_plain_bisection_finds():
    """The Illinois iteration of step 5 converges on the root of the paper's f(x)."""
    mu, phi, sigma = PLAYER.mu, PLAYER.phi, PLAYER.volatility
    terms = [(glicko2._g(o.phi), glicko2._expected(mu, o.mu, o.phi), s) for o, s in RESULTS]
    v = 1 / sum(g * g * e * (1 - e) for g, e, _ in terms)
    delta = v * sum(g * (s - e) for g, e, s in terms)
    a = math.log(sigma**2)

    def f(x):
        ex = math.exp(x)
        return ex * (delta**2 - phi**2 - v - ex) / (2 * (phi**2 + v + ex) ** 2) - (x - a) / 0.25

    low, high = a - 10, a + 10
    for _ in range(200):
        middle = (low + high) / 2
        low, high = (low, middle) if f(low) * f(middle) <= 0 else (middle, high)
    expected = math.exp(low / 2)
    assert glicko2._volatility(phi, sigma, v, delta, glicko2.TAU) == pytest.approx(
        expected, abs=1e-9
    )
    # the paper's intermediate values, to its four decimals (it rounds g and E first)
    assert v == pytest.approx(1.7785, abs=0.001)
    assert delta == pytest.approx(-0.4834, abs=0.001)


def test_a_single_game_between_two_new_players_is_symmetric():
    new = Rating()
    winner = rate(new, [(new, 1)])
    loser = rate(new, [(new, 0)])
    assert winner.rating > 1500 > loser.rating
    assert (winner.rating - 1500) + (loser.rating - 1500) == pytest.approx(0, abs=1e-9)
    assert winner.deviation == pytest.approx(loser.deviation) and winner.deviation < 350
    draw = rate(new, [(new, 0.5)])
    assert draw.rating == pytest.approx(1500) and draw.deviation < 350


def test_beating_a_stronger_player_gains_more_than_beating_a_weaker_one():
    me = Rating(1500, 100)
    assert rate(me, [(Rating(1700, 100), 1)]).rating > rate(me, [(Rating(1300, 100), 1)]).rating


def test_a_period_without_games_only_grows_the_deviation():
    after = idle(PLAYER)
    assert after.rating == PLAYER.rating and after.volatility == PLAYER.volatility
    assert after.deviation == pytest.approx(math.hypot(200, 0.06 * glicko2.SCALE))
    assert round(after.deviation, 2) == 200.27
    assert rate(PLAYER, []) == after
    assert idle(Rating()).deviation == 350  # never beyond a new player's


def test_ratings_are_immutable_and_scores_are_checked():
    with pytest.raises(AttributeError):
        PLAYER.rating = 1600
    with pytest.raises(ValueError):
        rate(PLAYER, [(Rating(), 2)])


def test_the_module_imports_no_django():
    tree = ast.parse(Path(glicko2.__file__).read_text())
    imported = {
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
    }
    imported |= {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert imported and not any(name and name.startswith("django") for name in imported)
