"""Profiles, the seed and the case counts of the fuzz tests.

``FUZZ_PROFILE=long`` runs many more cases (a nightly job, or before a release);
``FUZZ_SEED`` picks another seed. The profiles are registered here but never loaded:
each fuzz test applies its own, so that the property tests elsewhere keep theirs.
"""

from __future__ import annotations

import logging
import random
import time
from collections import Counter
from dataclasses import dataclass, field

import pytest
from hypothesis import HealthCheck, Phase, settings

from .strategies import PROFILE, SEED

# max_examples is the budget of a test of weight 1: a test scales it by its weight.
settings.register_profile(
    "fuzz-default",
    max_examples=100,
    deadline=None,
    database=None,  # no example replayed from an earlier run: the same cases every time
    phases=(Phase.explicit, Phase.generate, Phase.shrink),
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,  # the fixtures are the world each example acts on
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
    ],
    print_blob=True,
)
settings.register_profile("fuzz-long", settings.get_profile("fuzz-default"), max_examples=1500)
if PROFILE not in ("default", "long"):
    raise pytest.UsageError(f"FUZZ_PROFILE is 'default' or 'long', not {PROFILE!r}")


@dataclass
class Run:
    examples: int = 0
    messages: int = 0  # requests or frames sent
    accepted: int = 0  # of which the server took (the rest it refused)
    seconds: float = 0.0
    codes: Counter = field(default_factory=Counter)  # error code -> how often it came


RUNS: dict[str, Run] = {}


@pytest.fixture
def fuzz_run(request):
    """The tally of one fuzz test: examples, requests or frames, the error codes met."""
    run = RUNS.setdefault(request.node.nodeid, Run())
    started = time.monotonic()
    yield run
    run.seconds = time.monotonic() - started
    print(
        f"fuzz {request.node.name}: {run.examples} cases, {run.messages} messages "
        f"({run.accepted} accepted), {run.seconds:.1f} s (seed {SEED}, profile {PROFILE})"
    )


@pytest.fixture(autouse=True)
def seeded_dice(monkeypatch):
    """Dice and shuffles from the seed: the games, and so the generated commands, repeat."""
    from games.services import commitments, game_log

    monkeypatch.setattr(game_log, "rng", random.Random(SEED))
    # the games' own streams from seeds that repeat too (docs/fairness.md)
    seeds = random.Random(SEED + 1)
    monkeypatch.setattr(commitments, "new_server_seed", lambda: seeds.randbytes(32).hex())


@pytest.fixture(autouse=True)
def quiet_refusals():
    """Thousands of 4xx answers are the point here: log only what went wrong (5xx)."""
    loggers = [logging.getLogger(name) for name in ("django.request", "django.security")]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.ERROR)
    yield
    for logger, level in zip(loggers, levels, strict=True):
        logger.setLevel(level)


def pytest_terminal_summary(terminalreporter):
    if not RUNS:
        return
    write = terminalreporter.write_line
    terminalreporter.section(f"fuzz cases (seed {SEED}, profile {PROFILE})")
    for nodeid, run in RUNS.items():
        write(
            f"{run.examples:6d} cases {run.messages:7d} messages {run.accepted:6d} accepted "
            f"{run.seconds:6.1f} s  {nodeid}"
        )
    total = Run(
        examples=sum(r.examples for r in RUNS.values()),
        messages=sum(r.messages for r in RUNS.values()),
        accepted=sum(r.accepted for r in RUNS.values()),
        seconds=sum(r.seconds for r in RUNS.values()),
    )
    write(
        f"{total.examples:6d} cases {total.messages:7d} messages {total.accepted:6d} accepted "
        f"{total.seconds:6.1f} s  in all"
    )
