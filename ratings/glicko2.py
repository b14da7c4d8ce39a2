"""Glicko-2, written from Mark Glickman's "Example of the Glicko-2 system" (no Django).

A rating is an immutable ``Rating(rating, deviation, volatility)`` on the familiar
scale (1500 / 350 / 0.06 for a new player). ``rate(player, results)`` returns the
player's rating after one rating period in which they played ``results``: a list of
``(opponent's rating before the period, score)`` with score 1 (win), 0.5 (draw) or 0
(loss). Every opponent is taken at their rating from *before* the period.
``rate(player, [])`` is the period without games: only the deviation grows.

The steps below are numbered as in the paper. The volatility (step 5) is found with
the Illinois algorithm exactly as the paper gives it; note that its function ``f`` uses
the player's *deviation* φ, not the rating.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

DEFAULT_RATING = 1500.0
DEFAULT_DEVIATION = 350.0
DEFAULT_VOLATILITY = 0.06
TAU = 0.5  # the system constant: how much the volatility may change in a period
EPSILON = 0.000001  # convergence tolerance of the volatility iteration
SCALE = 173.7178  # Glicko-2 scale factor (400 / ln 10)

SCORES = (0.0, 0.5, 1.0)


@dataclass(frozen=True)
class Rating:
    rating: float = DEFAULT_RATING
    deviation: float = DEFAULT_DEVIATION
    volatility: float = DEFAULT_VOLATILITY

    # Step 2: onto the Glicko-2 scale.
    @property
    def mu(self) -> float:
        return (self.rating - DEFAULT_RATING) / SCALE

    @property
    def phi(self) -> float:
        return self.deviation / SCALE


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _expected(mu: float, mu_j: float, phi_j: float) -> float:
    return 1.0 / (1.0 + math.exp(-_g(phi_j) * (mu - mu_j)))


def _volatility(phi: float, sigma: float, v: float, delta: float, tau: float) -> float:
    """Step 5: the new volatility σ′, by the Illinois algorithm of the paper."""
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        return (ex * (delta * delta - phi * phi - v - ex)) / (2.0 * (phi * phi + v + ex) ** 2) - (
            x - a
        ) / (tau * tau)

    # (b) the initial bracket
    big_a = a
    if delta * delta > phi * phi + v:
        big_b = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    # (c), (d) iterate until the bracket is narrower than ε
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > EPSILON:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a = f_a / 2.0
        big_b, f_b = big_c, f_c
    # (e)
    return math.exp(big_a / 2.0)


def rate(player: Rating, results: Iterable[tuple[Rating, float]], tau: float = TAU) -> Rating:
    """The player's rating after one rating period with these results."""
    results = list(results)
    for _, score in results:
        if score not in SCORES:
            raise ValueError(f"a score is 1, 0.5 or 0, not {score!r}")
    mu, phi, sigma = player.mu, player.phi, player.volatility
    if not results:
        return idle(player)
    # Step 3: the estimated variance v of the rating from the game outcomes.
    terms = [(_g(o.phi), _expected(mu, o.mu, o.phi), score) for o, score in results]
    v = 1.0 / sum(g * g * e * (1.0 - e) for g, e, _ in terms)
    # Step 4: the estimated improvement Δ.
    improvement = sum(g * (score - e) for g, e, score in terms)
    delta = v * improvement
    # Step 5: the new volatility.
    sigma_new = _volatility(phi, sigma, v, delta, tau)
    # Step 6: the pre-period deviation grown by the new volatility.
    phi_star = math.sqrt(phi * phi + sigma_new * sigma_new)
    # Step 7: the new deviation and rating.
    phi_new = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    mu_new = mu + phi_new * phi_new * improvement
    # Step 8: back to the familiar scale.
    return Rating(
        rating=SCALE * mu_new + DEFAULT_RATING,
        deviation=SCALE * phi_new,
        volatility=sigma_new,
    )


def idle(player: Rating) -> Rating:
    """A rating period without games: rating and volatility stay, the deviation grows
    (φ′ = √(φ² + σ²)), never beyond a new player's deviation."""
    phi_new = math.sqrt(player.phi**2 + player.volatility**2)
    return Rating(
        rating=player.rating,
        deviation=min(SCALE * phi_new, DEFAULT_DEVIATION),
        volatility=player.volatility,
    )
