"""What one move costs the database: the statements of the write and of one read."""

import random
import uuid

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games import rules
from games.access import Seating, access_game
from games.live.reads import Frames, GameRead, read_after_command, read_game, read_since
from games.models import Command, Event, Game
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


def _frames(read: GameRead) -> list[str]:
    return [read.frame(kind) for kind in (0, 1, "watcher")]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_read_after_a_command_is_the_read_the_database_gives(game, seed):
    """FRAMES.advance builds each new version's read from the one before and the command's
    outcome; over whole random games, every frame must be the one a fresh read gives."""
    rng = random.Random(seed)
    seating = access_game(None, game.pk)
    kept = GameRead(seating, read_game(seating), generation=0)
    older = []  # earlier reads, as another process keeps them
    derived = caught_up = 0
    while kept.seating.game.status == Game.Status.ACTIVE:
        state = kept.seating.game.rules_state()
        seat = state.turn
        command = rules.random_command(state, seat, rng)
        outcome = commands.do_command(
            game.pk, kept.seating.players[seat], command, kept.version, str(uuid.uuid4())
        )
        fresh_seating = access_game(None, game.pk)
        fresh = GameRead(fresh_seating, read_game(fresh_seating), generation=0)
        reads = read_after_command(kept.reads, outcome.game, seat, outcome.events)
        if reads is not None:
            after = GameRead(Seating(outcome.game, outcome.seating.players, None), reads, 0)
            assert _frames(after) == _frames(fresh), f"version {outcome.version}"
            derived += 1
        for back in older[-3:]:  # what another process reads: only what came since
            reads = read_since(fresh_seating, back.reads, back.version)
            if reads is not None:
                since = GameRead(fresh_seating, reads, 0)
                assert _frames(since) == _frames(fresh), f"from {back.version}"
                caught_up += 1
        older.append(kept)
        kept = fresh
    assert derived > 20  # all but the first command and the last
    assert caught_up > 60


def test_a_socket_process_reads_nothing_for_its_own_move(game):
    """Frames.advance keeps the new version's read, made without a statement."""
    frames = Frames()
    frames.join(game.pk)
    game.refresh_from_db()
    mover, version = game.to_move, game.version
    outcome = commands.do_command(game.pk, mover, {"type": "roll"}, version, "a1")
    seating = access_game(None, game.pk)
    frames.reads[game.pk] = GameRead(seating, read_game(seating), generation=0)
    state = seating.game.rules_state()
    command = rules.random_command(state, state.turn, random.Random(4))
    player = seating.players[state.turn]
    moved = commands.do_command(game.pk, player, command, outcome.version, "a2")
    with CaptureQueriesContext(connection) as advance:
        frames.advance(game.pk, moved)
        kept = frames.reads[game.pk]
        made = _frames(kept)
    assert statements(advance) == []
    assert kept.version == moved.version
    fresh = access_game(None, game.pk)
    assert made == _frames(GameRead(fresh, read_game(fresh), generation=0))


def test_advance_keeps_nothing_it_cannot_vouch_for(game):
    """A read of another version, a stale one (a chat line since) or a retry: no advance."""
    frames = Frames()
    frames.join(game.pk)
    game.refresh_from_db()
    first = commands.do_command(game.pk, game.to_move, {"type": "roll"}, game.version, "k1")
    seating = access_game(None, game.pk)
    before = GameRead(seating, read_game(seating), generation=0)
    state = seating.game.rules_state()
    command = rules.random_command(state, state.turn, random.Random(5))
    player = seating.players[state.turn]
    moved = commands.do_command(game.pk, player, command, first.version, "k2")
    again = commands.do_command(game.pk, player, command, first.version, "k2")
    assert again.duplicate
    frames.reads[game.pk] = before
    frames.advance(game.pk, again)
    assert frames.reads[game.pk] is before
    frames.stale(game.pk)  # a chat line: the kept read is gone, and nothing is made
    frames.advance(game.pk, moved)
    assert game.pk not in frames.reads
    frames.reads[game.pk] = GameRead(seating, read_game(seating), generation=0)
    frames.generation[game.pk] += 1  # stale while it was being read
    frames.advance(game.pk, moved)
    assert frames.reads[game.pk].version == first.version
