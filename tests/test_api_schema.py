"""The API's OpenAPI schema: served, valid OpenAPI 3.1, rendered by a page of the site's own
files, and true: schemathesis calls every operation as a logged-in player (by token) and
finds no 5xx, no status the schema does not list and no answer that breaks its schema."""

from __future__ import annotations

import datetime as dt
import re

import pytest
import schemathesis
from django.contrib.staticfiles import finders
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from django.utils import timezone
from hypothesis import HealthCheck, Phase, settings
from openapi_spec_validator import validate
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from accounts.holidays import do_declare_holiday
from accounts.tokens import do_issue_token
from games.models import ChatMessage, Invitation
from games.services import chat
from tournaments.services import entries

from .fuzz.snapshots import finished_game

pytestmark = pytest.mark.django_db

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    response_schema_conformance,
    content_type_conformance,
]
EXAMPLES = 12  # per operation (45 operations)


def test_the_schema_is_served_and_valid_openapi_3_1(client):
    response = client.get("/api/openapi.json")
    assert response.status_code == 200
    schema = response.json()
    assert schema["openapi"].startswith("3.1")
    validate(schema)
    methods = {(path, method) for path, ops in schema["paths"].items() for method in ops}
    assert ("/api/games/{pk}/commands/", "post") in methods
    assert ("/api/tournaments/{pk}/join/", "post") in methods
    assert ("/api/tokens/{pk}/revoke/", "post") in methods
    assert ("/api/account/bot/", "post") in methods
    assert ("/api/stream/", "get") in methods
    assert ("/api/games/{pk}/stream/", "get") in methods
    # with the note (GET and PUT), the search, the follows, the tournaments' eight, the
    # tokens' three, the bot-account upgrade and the two streams
    assert len(methods) == 45


def test_every_body_refuses_unknown_fields_in_the_schema(client):
    schema = client.get("/api/openapi.json").json()
    components = schema["components"]["schemas"]
    bodies = [
        op["requestBody"]["content"]["application/json"]["schema"]
        for ops in schema["paths"].values()
        for op in ops.values()
        if "requestBody" in op
    ]
    assert len(bodies) == 13
    for body in bodies:
        ref = body.get("$ref") or body["allOf"][0]["$ref"]
        assert components[ref.rsplit("/", 1)[1]]["additionalProperties"] is False, ref


def test_the_docs_page_renders_the_schema_from_the_sites_own_files(client):
    response = client.get("/api/docs")
    assert response.status_code == 200
    page = response.content.decode()
    policy = response["Content-Security-Policy"]
    assert "script-src 'self'" in policy and "unsafe-inline" not in policy
    scripts = re.findall(r"<script([^>]*)>", page)
    sources = [re.search(r'src="([^"]+)"', s).group(1) for s in scripts if "src=" in s]
    # no inline script: the only script without a source is the JSON of the settings
    inline = [s for s in scripts if "src=" not in s]
    assert inline == [' type="application/json" id="swagger-settings"']
    assert '"url": "/api/openapi.json"' in page
    for source in sources + re.findall(r'<link rel="stylesheet" href="([^"]+)"', page):
        assert source.startswith("/static/"), source  # no third-party CDN
        assert finders.find(source.removeprefix("/static/")), source


# -- schemathesis ---------------------------------------------------------------------------


@pytest.fixture
def world(players, game):
    """anna's token, and rows each operation can find: games running and over, an
    invitation, a holiday, chat, a tournament open for sign-up."""
    anna, bernd = players["anna"], players["bernd"]
    made, token = do_issue_token(anna, "schema")
    spare, _ = do_issue_token(anna, "spare", ("read",), 30)
    over = finished_game(anna, bernd)
    invitation = Invitation.objects.create(from_user=bernd, to_user=anna)
    start = timezone.localdate() + dt.timedelta(days=10)
    holiday = do_declare_holiday(anna, start, start + dt.timedelta(days=2))
    chat.do_chat(game.pk, bernd, "Ahoy")
    deadline = timezone.now() + dt.timedelta(days=2)
    cup = entries.do_create(bernd, name="Cup", format="knockout", signup_deadline=deadline)
    entries.do_join(cup.pk, bernd)
    return {
        "token": token,
        "ids": {
            "games": [game.pk, over.pk],
            "invitations": [invitation.pk],
            "holidays": [holiday.pk],
            "blocks": ["bernd", "carl"],
            "push": [],
            "tournaments": [cup.pk],
            "tokens": [spare.pk, made.pk],
        },
    }


@pytest.fixture
def open_connection():
    """As Django's test client does: the test's connection (and its transaction) stays
    open across requests, which a WSGI handler closes as each request ends."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


# The schema as the site serves it (read once, as the tests are collected).
schema = schemathesis.openapi.from_wsgi("/api/openapi.json", get_wsgi_application())


def aim(case, world) -> None:
    """Most generated ids name nothing: two in three cases take a row that exists."""
    ids = world["ids"].get(case.path.split("/")[2], [])
    for name, value in list((case.path_parameters or {}).items()):
        if ids and hash(str(value)) % 3:
            case.path_parameters[name] = str(ids[hash(str(value)) % len(ids)])
    if isinstance(case.body, dict) and "message" in case.body and "reason" in case.body:
        message = ChatMessage.objects.first()
        if message is not None and hash(str(case.body)) % 2:
            case.body = {"message": message.pk, "reason": case.body["reason"]}


@schema.parametrize()
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    database=None,
    derandomize=True,
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=list(HealthCheck),
)
def test_every_operation_keeps_its_schema(case, world, open_connection):
    aim(case, world)
    headers = {
        "Authorization": f"Bearer {world['token']}",
        "Accept-Encoding": "identity",  # the WSGI client would hand over gzip as it came
    }
    if case.method == "POST" and case.path == "/api/tokens/" and hash(str(case.body)) % 3:
        # mostly without a token (which may not make tokens): the body's name and password
        del headers["Authorization"]
    case.call_and_validate(headers=headers, checks=CHECKS)
