"""The move path's statements, written once: the same rows and objects as the ORM's."""

import datetime as dt

import pytest
from django.core.exceptions import FieldDoesNotExist
from django.db import IntegrityError, connection, transaction
from django.test.utils import CaptureQueriesContext
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.models import Command, Game, Seat
from shanghaien.lib.statements import JoinedQuery, insert_rows, update_row

pytestmark = pytest.mark.django_db


def seats_of(pk):
    return Seat.objects.select_related("game", "user").filter(game_id=pk).order_by("seat")


def fields_of(obj) -> dict:
    return {f.attname: getattr(obj, f.attname) for f in obj._meta.concrete_fields}


SEATS = {"where": "game", "related": ("game", "user"), "order_by": "seat"}


def test_a_joined_query_gives_what_its_queryset_gives(game, monkeypatch):
    game.refresh_from_db()
    query = JoinedQuery(Seat, **SEATS)
    seats = query(game.pk)
    expected = list(seats_of(game.pk))
    assert [fields_of(s) for s in seats] == [fields_of(s) for s in expected]
    assert [fields_of(s.user) for s in seats] == [fields_of(s.user) for s in expected]
    assert fields_of(seats[0].game) == fields_of(expected[0].game)
    assert isinstance(seats[0].game.state, dict)  # JSON decoded, as the ORM does
    assert isinstance(seats[0].game.created_at, dt.datetime)
    assert seats[0].game.created_at.tzinfo is not None
    assert all(s._state.db == "default" and not s._state.adding for s in seats)

    def write_again(*args, **kwargs):
        raise AssertionError("written again")

    with monkeypatch.context() as patched, CaptureQueriesContext(connection) as ran:
        patched.setattr(JoinedQuery, "_write", write_again)
        assert query(game.pk + 1000) == []  # another value, the same statement
        with CaptureQueriesContext(connection) as related:
            seats = query(game.pk)
            assert [s.user.username for s in seats] == ["anna", "bernd"]
            assert seats[1].game.pk == game.pk
        assert len(related.captured_queries) == 1  # the related objects came with the seats
    assert len(ran.captured_queries) == 2


def test_the_instances_save_as_the_orms_do(game):
    seat = JoinedQuery(Seat, **SEATS)(game.pk)[0]
    seat.open_sockets = 3
    seat.save(update_fields=["open_sockets"])
    assert Seat.objects.get(pk=seat.pk).open_sockets == 3


def test_a_joined_query_locks_as_its_queryset_does(game):
    query = JoinedQuery(Seat, **SEATS, lock_of=("game",))
    with transaction.atomic(), CaptureQueriesContext(connection) as ran:
        assert len(query(game.pk)) == 2
    if connection.features.has_select_for_update:
        assert "FOR UPDATE OF t1" in ran.captured_queries[-1]["sql"]


@pytest.mark.django_db(transaction=True)
def test_a_joined_query_that_locks_refuses_to_run_outside_a_transaction():
    query = JoinedQuery(Seat, **SEATS, lock_of=("game",))
    with pytest.raises(transaction.TransactionManagementError):
        query(1)  # as select_for_update refuses
    with transaction.atomic():
        assert query(1) == []


def test_a_joined_query_joins_only_foreign_keys_never_null():
    with pytest.raises(ValueError, match="never null"):
        JoinedQuery(Game, where="id", related=("to_move",))
    with pytest.raises(ValueError, match="never null"):
        JoinedQuery(Seat, where="game", related=("seat",))
    with pytest.raises(ValueError, match="joined"):
        JoinedQuery(Seat, where="game", related=("user",), lock_of=("game",))
    with pytest.raises(FieldDoesNotExist):
        JoinedQuery(Seat, where="no_such_field")


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
    for write in ("orm", "written once"):
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
