"""Errors reach the error-reporting service with a DSN, and no secret goes with them."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import urllib.error
import urllib.request

import pytest

from shanghaien.lib import error_reports

from ..daphne import ROOT, start_server
from ..helpers.communicators import session_cookie
from ..helpers.databases import database_url
from ..helpers.sentry import error_service, exception_types


def environment(**more: str) -> dict:
    """This process's environment without any DSN of the developer's, plus ``more``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SENTRY_")}
    return {**env, **more}


def get(url: str, cookie: str) -> int:
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers={"Cookie": cookie})):
            return 200
    except urllib.error.HTTPError as error:
        return error.code


def deck_pattern(deck: list[str]) -> re.Pattern:
    """The deck's first cards in their order, however they are quoted and separated."""
    return re.compile(r"\W{1,6}".join(re.escape(card) for card in deck[:4]).encode())


@pytest.mark.django_db(transaction=True)  # the server reads the game
def test_a_page_that_fails_is_reported_without_its_secrets(game, players):
    game.refresh_from_db()
    seed, deck = game.fair_seed, game.state["deck"]
    assert seed and len(deck) > 4
    cookie = session_cookie(players["anna"])
    session_key = cookie.split("=", 1)[1]
    with error_service() as service:
        env = environment(
            DATABASE_URL=database_url(),
            DJANGO_SETTINGS_MODULE="tests.observability.site_that_fails",
            SENTRY_DSN=service.dsn,
            SENTRY_ENVIRONMENT="staging",
            SENTRY_RELEASE="shanghaien@1a2b3c4",
        )
        with start_server(env=env) as (url,):
            path = f"/fail/{game.pk}/"
            assert get(f"{url}{path}?token=in-the-query-77", cookie) == 500
            event = service.wait_for(lambda event: "RuntimeError" in exception_types(event))
        raw = b"".join(envelope.raw for envelope in service.envelopes)

    assert event["environment"] == "staging" and event["release"] == "shanghaien@1a2b3c4"
    assert event["request"]["url"] == f"{url}{path}" and event["request"]["method"] == "GET"
    assert "query_string" not in event["request"]
    (exception,) = event["exception"]["values"]
    frames = exception["stacktrace"]["frames"]
    assert frames[-1]["function"] == "fail"
    assert frames[-1]["context_line"].strip().startswith("raise")
    assert not [frame for frame in frames if "vars" in frame]
    # nothing of the game's secrets, the session or the query string, anywhere
    assert seed.encode() not in raw
    assert not deck_pattern(deck).search(raw)
    assert session_key.encode() not in raw
    assert b"in-the-query-77" not in raw


def test_the_deck_pattern_finds_a_deck_however_it_is_written():
    """(The check above can fail: a deck written as JSON or as a repr is found.)"""
    deck = ["spanish-3a", "dutch-3b", "T2", "spanish-4", "T5"]
    assert deck_pattern(deck).search(b'{"deck": ["spanish-3a","dutch-3b","T2","spanish-4"]}')
    assert deck_pattern(deck).search(b"\"['spanish-3a', 'dutch-3b', 'T2', 'spanish-4', 'T5']\"")
    assert not deck_pattern(deck).search(b'["dutch-3b", "spanish-3a", "T2", "spanish-4"]')


def test_a_failing_worker_job_is_reported_with_its_name(tmp_path):
    """The worker goes on after a failing job (it logs it); the report says which job."""
    with error_service() as service:
        env = environment(
            # a database that cannot be opened: every job fails
            DATABASE_URL=f"sqlite:///{tmp_path}/no/such/dir/db.sqlite3",
            SENTRY_DSN=service.dsn,
        )
        command = [sys.executable, "manage.py", "run_worker", "--once", "--job", "deadlines"]
        done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, timeout=60)
        assert done.returncode == 0, done.stderr.decode()
        assert b"deadlines: failed" in done.stderr
        event = service.wait_for(lambda event: event.get("tags", {}).get("job") == "deadlines")
    assert exception_types(event)[-1] == "OperationalError"  # Django's, from sqlite3's
    assert event["level"] == "error"


@pytest.mark.parametrize("dsn", ["", "http://public-key@127.0.0.1:9/42"])
def test_error_reporting_starts_only_with_a_dsn(dsn):
    code = "import django, sentry_sdk; django.setup(); print(sentry_sdk.get_client().is_active())"
    env = environment(DJANGO_SETTINGS_MODULE="shanghaien.settings", SENTRY_DSN=dsn)
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, timeout=60
    )
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout.decode().split() == [str(bool(dsn))]


def test_a_report_names_no_query_string_and_no_secret_path():
    event = {
        "request": {
            "url": "https://play.example.org/accounts/unsubscribe/eyJ1Ijo0Mn0:1a2b/",
            "query_string": "token=abc",
            "method": "POST",
        }
    }
    scrubbed = error_reports.scrub(event, {})["request"]
    assert scrubbed == {
        "url": "https://play.example.org/accounts/unsubscribe/<str:token>/",
        "method": "POST",
    }
    page = {"request": {"url": "https://play.example.org/games/12/", "query_string": "as=0"}}
    assert error_reports.scrub(page, {})["request"] == {"url": "https://play.example.org/games/12/"}
