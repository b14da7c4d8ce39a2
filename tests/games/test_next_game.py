"""The header's "Next game": the games waiting for the player's move, the one whose turn
began first first (ties by id), walked through from a board; the count it shows is the
title's, read once a page."""

from __future__ import annotations

import random
import re
import uuid
from datetime import timedelta

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts import guest_accounts
from games import bot_turns, queries, rules
from games.models import Game
from games.services import commands, invitations

pytestmark = pytest.mark.django_db


def play_until_turn_of(game, user, seed=0):
    """Random legal moves (no giving up) until ``user`` is to move in ``game``."""
    rng = random.Random(seed)
    by_seat = {s.seat: s.user for s in game.seats.select_related("user")}
    while True:
        game.refresh_from_db()
        if game.to_move_id == user.pk:
            return game
        state = game.rules_state()
        command = rules.random_command(state, state.turn, rng)
        commands.do_command(game.pk, by_seat[state.turn], command, game.version, str(uuid.uuid4()))


def waiting_game(player, opponent, began):
    """A game of ``player``'s against ``opponent`` waiting for ``player``, whose turn
    began at ``began``."""
    game = invitations.do_accept_invitation(
        invitations.do_invite(player, to=opponent.username).pk, opponent
    )
    game = play_until_turn_of(game, player)
    Game.objects.filter(pk=game.pk).update(turn_started_at=began)
    return game


@pytest.fixture
def three(players, django_user_model):
    """Three games waiting for anna: the turn of b began first, then a, then c."""
    anna = players["anna"]
    dora = django_user_model.objects.create_user("dora", password="tavern-dice-42")
    now = timezone.now()
    a = waiting_game(anna, players["bernd"], now - timedelta(hours=2))
    b = waiting_game(anna, players["carl"], now - timedelta(hours=5))
    c = waiting_game(anna, dora, now - timedelta(minutes=1))
    return a, b, c


def target(response) -> str:
    assert response.status_code == 302, response.status_code
    return response["Location"]


def test_the_waiting_games_come_oldest_turn_first(players, three):
    a, b, c = three
    assert list(queries.waiting(players["anna"]).values_list("id", flat=True)) == [b.pk, a.pk, c.pk]
    assert queries.waiting_count(players["anna"]) == 3
    assert queries.waiting_ids(players["anna"]) == [b.pk, a.pk, c.pk]
    assert queries.waiting_count(players["bernd"]) == 0


def test_turns_that_began_at_the_same_moment_go_by_id(players, three):
    a, b, c = three
    moment = timezone.now() - timedelta(days=1)
    Game.objects.filter(pk__in=[a.pk, b.pk, c.pk]).update(turn_started_at=moment)
    first, second, third = sorted([a.pk, b.pk, c.pk])
    anna = players["anna"]
    assert queries.next_waiting(anna) == first
    assert queries.next_waiting(anna, after=first) == second
    assert queries.next_waiting(anna, after=second) == third
    assert queries.next_waiting(anna, after=third) == first


def test_next_goes_to_the_game_waiting_longest_and_walks_on_from_a_board(clients, three):
    a, b, c = three
    client = clients["anna"]
    assert target(client.get("/next/")) == f"/games/{b.pk}/"
    assert target(client.get(f"/next/?after={b.pk}")) == f"/games/{a.pk}/"
    assert target(client.get(f"/next/?after={a.pk}")) == f"/games/{c.pk}/"
    # past the last: round again to the one waiting longest
    assert target(client.get(f"/next/?after={c.pk}")) == f"/games/{b.pk}/"


def test_after_a_move_next_goes_to_the_oldest_of_the_others(players, clients, three):
    a, b, c = three
    b.refresh_from_db()
    anna = players["anna"]
    rng = random.Random(1)
    while True:  # anna plays her turn in b (the oldest) until it is her opponent's
        b.refresh_from_db()
        if b.to_move_id != anna.pk:
            break
        state = b.rules_state()
        command = rules.random_command(state, state.turn, rng)
        commands.do_command(b.pk, anna, command, b.version, str(uuid.uuid4()))
    assert target(clients["anna"].get(f"/next/?after={b.pk}")) == f"/games/{a.pk}/"
    assert queries.waiting_count(anna) == 2


def test_a_bad_or_foreign_after_is_the_plain_next(clients, three, players):
    a, b, c = three
    client = clients["anna"]
    for after in ("x", "0", "-1", "9" * 40, "", "%00", str(a.pk + 1000)):
        assert target(client.get("/next/", {"after": after})) == f"/games/{b.pk}/"
    # a game that waits for somebody else: where it stands says nothing
    assert target(client.get(f"/next/?after={a.pk}")) == f"/games/{c.pk}/"
    assert target(clients["bernd"].get(f"/next/?after={a.pk}")) == "/"


def test_with_no_game_waiting_next_goes_to_the_lobby_saying_so(clients, game, players):
    name = game.to_move.username
    other = "bernd" if name == "anna" else "anna"
    response = clients[other].get("/next/", follow=True)
    assert response.redirect_chain == [("/", 302)]
    assert "No game is waiting for your move." in response.content.decode()
    # the only waiting game, asked from its own board: no other one
    response = clients[name].get(f"/next/?after={game.pk}", follow=True)
    assert response.redirect_chain == [("/", 302)]
    assert "No other game is waiting for your move." in response.content.decode()


def test_a_visitor_is_asked_to_log_in(client):
    assert target(client.get("/next/")).startswith("/accounts/login/")


def test_a_guest_is_led_to_their_game_against_the_computer():
    guest = guest_accounts.do_make_guest("203.0.113.9")
    client = Client()
    client.force_login(guest)
    assert target(client.get("/next/")) == "/"
    client.post("/play/now/", {"level": "deckhand"})
    game = Game.objects.get(seats__user=guest)
    bot_turns.play_bot_turns(pause=0)  # the computer opened: it plays its turn first
    game.refresh_from_db()
    assert game.to_move_id == guest.pk
    assert target(client.get("/next/")) == f"/games/{game.pk}/"
    page = client.get(f"/games/{game.pk}/").content.decode()
    assert 'id="next-game"' in page and 'data-waiting="1"' in page


def header_button(html: str) -> str:
    (found,) = re.findall(r'<a class="next-game"[^>]*>.*?</a>', html, re.S)
    return found


def test_the_header_shows_the_button_with_the_count_only_while_a_game_waits(clients, three):
    a, b, c = three
    page = clients["anna"].get("/users/anna/").content.decode()
    button = header_button(page)
    assert 'href="/next/"' in button and 'data-waiting="3"' in button and " hidden>" not in button
    assert 'aria-label="Next game (3 games waiting)"' in button
    assert '<span class="count" aria-hidden="true">3</span>' in button
    assert "<title>(3) Your turn · " in page
    idle = header_button(clients["bernd"].get("/users/anna/").content.decode())
    assert idle.endswith(' hidden>Next game <span class="count" aria-hidden="true">0</span></a>')
    # from a board, the button walks on from that game
    board = header_button(clients["anna"].get(f"/games/{a.pk}/").content.decode())
    assert f'href="/next/?after={a.pk}"' in board
    assert 'id="next-game"' not in Client().get("/rules/").content.decode()


@pytest.mark.parametrize(
    "url", ["/", "/users/anna/", "/settings/", "/games/finished/", "/ranking/"]
)
def test_the_button_and_the_title_share_one_count_a_page(clients, three, url):
    """The header's button costs no statement: the count the title read already."""
    with CaptureQueriesContext(connection) as captured:
        response = clients["anna"].get(url)
    assert response.status_code == 200
    assert 'data-waiting="3"' in response.content.decode()
    waiting = [
        q["sql"]
        for q in captured.captured_queries
        if q["sql"].startswith("SELECT COUNT") and '"to_move_id"' in q["sql"]
    ]
    assert len(waiting) == 1, waiting


@pytest.fixture
def crowded(postgres_only, transactional_db, django_user_model):
    """The growth benchmark's shape, smaller: anna to move in 35 of her 70 games under way,
    23,000 games in all, 2,000 of others under way; vacuumed and analysed as a live
    database is (a test's transaction would hide the rows from VACUUM: this one commits)."""
    anna = django_user_model.objects.create_user("anna", password="tavern-dice-42")
    bernd = django_user_model.objects.create_user("bernd", password="tavern-dice-42")
    now = timezone.now()
    rows = []
    for i in range(23_070):
        active = i < 70 or i >= 21_070
        mover = (anna if i % 2 else bernd) if i < 70 else (bernd if active else None)
        rows.append(
            Game(
                state={},
                status=Game.Status.ACTIVE if active else Game.Status.FINISHED,
                to_move=mover,
                turn_started_at=now - timedelta(minutes=i),
                finished_at=None if active else now,
            )
        )
    Game.objects.bulk_create(rows, batch_size=5000)
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE games_game")
    yield anna
    with connection.cursor() as cursor:  # games without a log: gone before the log is checked
        cursor.execute("DELETE FROM games_game WHERE state = '{}'")


def plan_of(sql: str, params=()) -> str:
    with connection.cursor() as cursor:
        cursor.execute("EXPLAIN " + sql, params)
        return "\n".join(row[0] for row in cursor.fetchall())


def test_the_count_and_the_next_game_are_read_on_the_waiting_index(crowded):
    anna = crowded
    with CaptureQueriesContext(connection) as captured:
        assert queries.waiting_count(anna) == 35
        first = queries.next_waiting(anna)
        assert len(queries.waiting_ids(anna)) == 35
        queries.next_waiting(anna, after=first)
    assert len(captured.captured_queries) == 5  # count, first, ids, where "after" stands, next
    for query in captured.captured_queries:
        plan = plan_of(query["sql"])
        assert "Index Only Scan using game_waiting_idx" in plan and "Sort" not in plan, plan
