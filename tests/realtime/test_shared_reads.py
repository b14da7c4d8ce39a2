"""A move costs the same statements however many sockets watch it, on pooled connections."""

import asyncio
import datetime as dt
import random
import threading
import time

import pytest
from channels.db import database_sync_to_async
from django.db import connection
from django.db.backends import utils

from accounts.holidays import do_declare_holiday
from games import rules
from games.live.reads import FRAMES
from games.services import commands

from ..helpers.databases import uses_postgres
from .protocol import opponent_arrived

pytestmark = pytest.mark.django_db(transaction=True)


class StatementCounter:
    """Counts the statements every thread runs (the sockets' work runs on a thread pool),
    not the transaction control (SQLite's explicit BEGIN)."""

    def __init__(self, monkeypatch):
        self.count = 0
        self.sql = []
        self.lock = threading.Lock()
        original = utils.CursorWrapper.execute

        def counted(cursor, sql, params=None):
            if not sql.startswith(("BEGIN", "SAVEPOINT", "RELEASE")):  # transaction control
                with self.lock:
                    self.count += 1
                    self.sql.append(sql[:70])
            return original(cursor, sql, params)

        monkeypatch.setattr(utils.CursorWrapper, "execute", counted)


@database_sync_to_async
def mover_of(game):
    game.refresh_from_db()
    return game.to_move.username, game.version


@database_sync_to_async
def next_move(game, rng):
    """Who moves, at which version, and a legal command of theirs (never giving up)."""
    game.refresh_from_db()
    state = game.rules_state()
    return game.to_move.username, game.version, rules.random_command(state, state.turn, rng)


async def open_board(sockets, game, user):
    socket, ok, _ = await sockets(f"/ws/games/{game.pk}/", user)
    assert ok
    first = await socket.receive_json_from(timeout=5)
    assert first["type"] == "state"
    return socket


async def play_one_move(actor, version, client_id, others, command=None) -> None:
    message = {"type": "command", "command": command or {"type": "roll"}}
    message.update(expected_version=version, client_id=client_id)
    await actor.send_json_to(message)
    kinds = {(await actor.receive_json_from(timeout=5))["type"] for _ in range(2)}
    assert kinds == {"ack", "state"}
    for socket in others:
        pushed = await socket.receive_json_from(timeout=5)
        assert pushed["type"] == "state" and pushed["version"] == version + 1, pushed


@pytest.mark.parametrize("watchers", [0, 4])
async def test_a_move_costs_nine_statements_whatever_watches_it(
    sockets, game, players, django_user_model, monkeypatch, watchers
):
    name, version = await mover_of(game)
    actor_name, other = name, "bernd" if name == "anna" else "anna"
    actor = await open_board(sockets, game, players[name])
    boards = [await open_board(sockets, game, players[other])]
    await opponent_arrived(actor)
    for _ in range(watchers):  # carl, in as many tabs
        boards.append(await open_board(sockets, game, players["carl"]))
    counter = StatementCounter(monkeypatch)
    await play_one_move(actor, version, "m1", boards)
    assert counter.count <= 9, "\n".join(counter.sql)
    assert FRAMES.reads[game.pk].version == version + 1  # one read, kept for the process
    # From now on the process that makes a move reads nothing: the write and its read.
    rng = random.Random(watchers)
    for i in range(3):
        name, version, command = await next_move(game, rng)
        mover = actor if name == actor_name else boards[0]
        watching = [b for b in [actor, *boards] if b is not mover]
        counter.count, counter.sql = 0, []
        await play_one_move(mover, version, f"n{i}", watching, command)
        assert counter.count == 4, "\n".join(counter.sql)


async def test_a_chat_line_makes_the_kept_read_stale(sockets, game, players):
    name, version = await mover_of(game)
    actor = await open_board(sockets, game, players[name])
    await play_one_move(actor, version, "m1", [])
    assert game.pk in FRAMES.reads
    await actor.send_json_to({"type": "chat", "text": "Good luck"})
    line = await actor.receive_json_from(timeout=5)
    assert line["type"] == "chat"
    assert game.pk not in FRAMES.reads  # the next state is read again, chat included
    await actor.send_json_to({"type": "sync"})
    state = await actor.receive_json_from(timeout=5)
    assert [m["text"] for m in state["game"]["chat"]] == ["Good luck"]


async def test_the_last_socket_of_a_game_takes_its_read_along(sockets, game, players):
    name, version = await mover_of(game)
    actor = await open_board(sockets, game, players[name])
    await play_one_move(actor, version, "m1", [])
    await actor.disconnect()
    assert game.pk not in FRAMES.reads and FRAMES.sockets[game.pk] == 0


@database_sync_to_async
def sessions_so_far() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_stat_clear_snapshot()")
        cursor.execute("SELECT sessions FROM pg_stat_database WHERE datname = current_database()")
        return cursor.fetchone()[0]


async def test_moves_open_no_new_database_session(sockets, game, players):
    if not uses_postgres():
        pytest.skip("needs PostgreSQL: set DATABASE_URL=postgres://… (CI's second run does)")
    name, version = await mover_of(game)
    other = "bernd" if name == "anna" else "anna"
    boards = {n: await open_board(sockets, game, players[n]) for n in (name, other)}
    await opponent_arrived(boards[name])
    await play_one_move(boards[name], version, "warm", [boards[other]])  # the pool is open
    await asyncio.sleep(1.5)  # sessions that ended report themselves
    before = await sessions_so_far()
    rng = random.Random(6)
    for i in range(6):
        name, version, command = await next_move(game, rng)
        other = "bernd" if name == "anna" else "anna"
        await play_one_move(boards[name], version, f"m{i}", [boards[other]], command)
    deadline = time.monotonic() + 2
    while time.monotonic() < deadline:
        await asyncio.sleep(0.5)
        after = await sessions_so_far()
    assert after - before == 0, f"{after - before} new PostgreSQL sessions for 6 moves"


async def test_a_declared_holiday_reaches_the_open_boards_at_once(sockets, game, players):
    """The kept read holds the holidays: declaring one announces the player's games."""
    name, version = await mover_of(game)
    other = "bernd" if name == "anna" else "anna"
    actor = await open_board(sockets, game, players[name])
    await play_one_move(actor, version, "m1", [])  # a read is kept for the game
    start = dt.date.today() + dt.timedelta(days=10)
    end = start + dt.timedelta(days=2)
    await database_sync_to_async(do_declare_holiday)(players[other], start, end)
    state = await actor.receive_json_from(timeout=5)
    assert state["type"] == "state"
    away = state["game"]["clock"]["away"]["opponent"]
    assert away == [{"start": start.isoformat(), "end": end.isoformat()}]


async def test_a_move_made_elsewhere_is_caught_up_in_three_statements(
    sockets, game, players, monkeypatch
):
    """Another process's move (here: the service, called directly) reaches this process as
    a notice; its sockets share one read of what changed since the kept read."""
    name, version = await mover_of(game)
    other = "bernd" if name == "anna" else "anna"
    boards = [await open_board(sockets, game, players[n]) for n in (name, other, "carl")]
    await opponent_arrived(boards[0])
    await play_one_move(boards[0], version, "m1", boards[1:])  # a read with a command
    rng = random.Random(8)
    for i in range(3):
        name, version, command = await next_move(game, rng)
        counter = StatementCounter(monkeypatch)
        await database_sync_to_async(commands.do_command)(
            game.pk, players[name], command, version, f"e{i}"
        )
        for board in boards:
            pushed = await board.receive_json_from(timeout=5)
            assert pushed["type"] == "state" and pushed["version"] > version
        # The write (elsewhere: four), then here the game, its commands and events since.
        assert counter.count == 7, "\n".join(counter.sql)
        assert [sql.split()[0] for sql in counter.sql[4:]] == ["SELECT"] * 3


async def test_a_move_is_announced_even_if_its_read_cannot_be_kept(
    sockets, game, players, monkeypatch
):
    def broken(game_id, outcome):
        raise RuntimeError("a bug in advance")

    name, version = await mover_of(game)
    other = "bernd" if name == "anna" else "anna"
    actor = await open_board(sockets, game, players[name])
    board = await open_board(sockets, game, players[other])
    await opponent_arrived(actor)
    monkeypatch.setattr(FRAMES, "advance", broken)
    await play_one_move(actor, version, "m1", [board])  # both sockets get the new state
