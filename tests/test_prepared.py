"""The move path's statements, compiled once: the same rows and objects as the ORM's."""

import datetime as dt

import pytest
from django.db import IntegrityError, connection, transaction
from django.db.models.sql.compiler import SQLCompiler
from django.test.utils import CaptureQueriesContext
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.models import Command, Seat
from shanghaien.lib.prepared import PreparedQuery, insert_rows, update_row

pytestmark = pytest.mark.django_db


def seats_of(pk):
    return Seat.objects.select_related("game", "user").filter(game_id=pk).order_by("seat")


def fields_of(obj) -> dict:
    return {f.attname: getattr(obj, f.attname) for f in obj._meta.concrete_fields}


def test_a_prepared_query_gives_what_its_queryset_gives(game, monkeypatch):
    game.refresh_from_db()
    prepared = PreparedQuery(seats_of)
    seats = prepared(game.pk)
    expected = list(seats_of(game.pk))
    assert [fields_of(s) for s in seats] == [fields_of(s) for s in expected]
    assert [fields_of(s.user) for s in seats] == [fields_of(s.user) for s in expected]
    assert fields_of(seats[0].game) == fields_of(expected[0].game)
    assert isinstance(seats[0].game.state, dict)  # JSON decoded, as the ORM does
    assert isinstance(seats[0].game.created_at, dt.datetime)
    assert seats[0].game.created_at.tzinfo is not None

    def compile_again(*args, **kwargs):
        raise AssertionError("compiled again")

    with monkeypatch.context() as patched, CaptureQueriesContext(connection) as ran:
        patched.setattr(SQLCompiler, "as_sql", compile_again)
        assert prepared(game.pk + 1000) == []  # another value, no compiling
        assert [s.user.username for s in prepared(game.pk)] == ["anna", "bernd"]
    assert len(ran.captured_queries) == 2


def test_a_prepared_query_locks_as_its_queryset_does(game):
    prepared = PreparedQuery(lambda pk: seats_of(pk).select_for_update(of=("game",)))
    with transaction.atomic(), CaptureQueriesContext(connection) as ran:
        assert len(prepared(game.pk)) == 2
    if connection.features.has_select_for_update:
        assert "FOR UPDATE" in ran.captured_queries[-1]["sql"]


def test_a_prepared_query_has_exactly_one_parameter():
    with pytest.raises(ValueError, match="one parameter"):
        PreparedQuery(lambda pk: Seat.objects.filter(game_id=pk, seat=1))(1)
    with pytest.raises(ValueError, match="one parameter"):
        PreparedQuery(lambda pk: Seat.objects.all())(1)


COMMAND = ("game", "seat", "client_id", "command", "version")


def test_insert_rows_writes_what_the_orm_would(game):
    rows = [(game.pk, i % 2, f"i-{i}", {"n": i, "text": "ä€"}, 100 + i) for i in (1, 2, 3)]
    insert_rows(Command, COMMAND, rows)
    written = list(Command.objects.filter(game=game, version__gt=100).order_by("version"))
    assert [(c.game_id, c.seat, c.client_id, c.command, c.version) for c in written] == rows
    assert all(c.created_at is not None for c in written)  # auto_now_add filled in


def test_insert_rows_raises_on_a_broken_constraint(game):
    row = (game.pk, 0, "c-1", {"type": "roll"}, 1)
    insert_rows(Command, COMMAND, [row])
    with pytest.raises(IntegrityError), transaction.atomic():
        insert_rows(Command, COMMAND, [row])
    assert Command.objects.filter(client_id="c-1").count() == 1


def test_update_row_writes_only_the_named_fields(game):
    game.refresh_from_db()
    game.round, game.result_reason = 4, "not written"
    assert update_row(game, ("round",)) == 1
    game.refresh_from_db()
    assert (game.round, game.result_reason) == (4, "")


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**31), 2**31) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=12,
)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(payload=st.dictionaries(st.text(max_size=8), json_values, max_size=5))
def test_any_json_payload_is_stored_as_the_orm_stores_it(game, payload):
    """Whatever the ORM accepts, insert_rows stores the same; whatever it refuses, too."""
    client_id = f"j-{len(str(payload))}"
    outcomes = []
    for write in ("orm", "prepared"):
        try:
            with transaction.atomic():
                if write == "orm":
                    Command.objects.create(
                        game=game, seat=0, client_id=client_id, command=payload, version=9
                    )
                else:
                    insert_rows(Command, COMMAND, [(game.pk, 0, client_id, payload, 9)])
                stored = Command.objects.get(game=game, client_id=client_id).command
                outcomes.append(("stored", stored))
                transaction.set_rollback(True)
        except Exception as error:  # the database refused it (e.g. a NUL in jsonb)
            outcomes.append(("refused", type(error).__name__))
    assert outcomes[0] == outcomes[1]
    if outcomes[0][0] == "stored":
        assert outcomes[0][1] == payload
