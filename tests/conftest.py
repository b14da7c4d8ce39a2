"""Shared fixtures. Test databases come from DATABASE_URL (SQLite unless it is set)."""

import os

import pytest


def uses_postgres() -> bool:
    return os.environ.get("DATABASE_URL", "").startswith(("postgres://", "postgresql://"))


@pytest.fixture
def postgres_only():
    if not uses_postgres():
        pytest.skip("needs PostgreSQL: set DATABASE_URL=postgres://… (CI's second run does)")


def pytest_collection_modifyitems(config, items):
    # Playwright's sync API keeps an event loop running for the whole browser session,
    # which async tests cannot share: browser tests run last.
    items.sort(key=lambda item: item.get_closest_marker("e2e") is not None)
