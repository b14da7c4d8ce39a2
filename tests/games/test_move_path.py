"""What one move costs the database: the statements of the write and of one read."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games.access import access_game
from games.frames import GameRead
from games.models import Command, Event
from games.serializers import read_game
from games.services import commands

pytestmark = pytest.mark.django_db


def statements(captured) -> list[str]:
    """The SQL a block ran, without the savepoints of the test's own transaction."""
    return [
        q["sql"]
        for q in captured.captured_queries
        if not q["sql"].startswith(("SAVEPOINT", "RELEASE SAVEPOINT"))
    ]


def test_a_move_is_written_in_four_statements(game):
    game.refresh_from_db()
    mover = game.to_move
    with CaptureQueriesContext(connection) as write:
        outcome = commands.do_command(game.pk, mover, {"type": "roll"}, game.version, "w1")
    sql = statements(write)
    assert len(sql) == 4, "\n".join(sql)
    assert "FOR UPDATE" in sql[0] or connection.vendor == "sqlite"  # the game, locked
    assert sql[0].count("JOIN") == 2  # with its seats and their users
    assert sql[1].startswith('INSERT INTO "games_event"')
    assert sql[2].startswith('UPDATE "games_game"')
    assert sql[3].startswith('INSERT INTO "games_command"')
    assert not outcome.duplicate and Command.objects.filter(client_id="w1").exists()


def test_a_retry_is_found_by_its_client_id_and_applies_nothing(game):
    game.refresh_from_db()
    first = commands.do_command(game.pk, game.to_move, {"type": "roll"}, game.version, "r1")
    events = Event.objects.count()
    again = commands.do_command(game.pk, first.game.to_move, {"type": "roll"}, 2, "r1")
    assert again.duplicate and again.version == first.version
    assert Event.objects.count() == events


def test_one_read_serves_every_side_of_a_version(game, players):
    with CaptureQueriesContext(connection) as read:
        seating = access_game(None, game.pk)
        shared = GameRead(seating, read_game(seating), generation=0)
    assert len(statements(read)) <= 5, "\n".join(statements(read))
    with CaptureQueriesContext(connection) as frames:
        texts = [shared.frame(kind) for kind in (0, 1, "watcher", 0)]
    assert statements(frames) == []  # the frames are built from the read alone
    assert texts[0] is texts[3]  # encoded once
    assert '"watching":true' in texts[2] and '"watching":false' in texts[0]


def test_a_move_and_its_read_take_nine_statements_at_most(game):
    game.refresh_from_db()
    mover = game.to_move
    with CaptureQueriesContext(connection) as move:
        commands.do_command(game.pk, mover, {"type": "roll"}, game.version, "n1")
        seating = access_game(None, game.pk)
        read_game(seating)
    assert len(statements(move)) <= 9, "\n".join(statements(move))
