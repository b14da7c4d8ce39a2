"""A computer opponent is marked as one wherever its name shows ("computer · Captain"),
a person never is; a game against the computer has no chat, and the server refuses a
line of it through the API and through the socket, storing nothing."""

import re
import uuid

import pytest
from channels.db import database_sync_to_async
from django.contrib.auth import get_user_model
from django.utils import translation

from games import words_js
from games.models import ChatMessage, Game
from games.services import commands, invitations

from ..helpers.games import post
from ..realtime.protocol import check

MARK = '<span class="tag bot">computer · Captain</span>'


def bot_of(level="captain"):
    """The bot of ``level``: the migration's account, or one like it where a transactional
    test's flush took it away."""
    users = get_user_model().objects
    found = users.filter(bot_level=level).first()
    return found or users.create(username=level.capitalize(), bot_level=level, password="!")


def game_against(inviter, opponent) -> Game:
    invitation = invitations.do_invite(inviter, to=opponent.username)
    if invitation.game_id:  # a bot accepts at once
        return invitation.game
    return invitations.do_accept_invitation(invitation.pk, opponent)


@pytest.fixture
def games(db, players):
    """anna's game against the Captain and her game against bernd."""
    return {
        "bot": game_against(players["anna"], bot_of()),
        "people": game_against(players["anna"], players["bernd"]),
    }


def resign(game, user):
    game.refresh_from_db()
    commands.do_command(game.pk, user, {"type": "resign"}, game.version, str(uuid.uuid4()))


def h1(page: str) -> str:
    return re.search(r"<h1>(.*?)</h1>", page, re.S).group(1)


def marks(page: str) -> int:
    return page.count('class="tag bot"')


# -- the game JSON and the board -----------------------------------------------------------


def test_the_game_json_names_a_bot_by_its_level_and_a_person_by_null(games, clients):
    body = clients["anna"].get(f"/api/games/{games['bot'].pk}/").json()
    assert body["bots"] == {"me": None, "opponent": "captain"}
    check({"type": "state", "version": body["version"], "game": body})
    body = clients["anna"].get(f"/api/games/{games['people'].pk}/").json()
    assert body["bots"] == {"me": None, "opponent": None}
    # a watcher sees the bot on its own side too
    watched = clients["carl"].get(f"/api/games/{games['bot'].pk}/").json()
    assert set(watched["bots"].values()) == {"captain", None}
    listed = clients["anna"].get("/api/games/").json()["games"]
    assert {g["opponent"]: g["opponent_bot"] for g in listed} == {
        "Captain": "captain",
        "bernd": None,
    }


def test_the_words_for_the_board_name_every_level():
    assert words_js.words_json()["bots"] == {
        "deckhand": "computer · Deckhand",
        "boatswain": "computer · Boatswain",
        "captain": "computer · Captain",
        "admiral": "computer · Admiral",
        "bot": "bot",  # a bot account's
    }
    with translation.override("de"):
        assert words_js.words_json()["bots"]["captain"].endswith("Kapitän")


def test_the_plain_board_marks_the_bot_in_its_heading(games, clients):
    page = clients["anna"].get(f"/games/{games['bot'].pk}/").content.decode()
    assert MARK in h1(page) and marks(page) == 1
    page = clients["anna"].get(f"/games/{games['people'].pk}/").content.decode()
    assert marks(page) == 0


# -- the lists -----------------------------------------------------------------------------


def test_the_lobby_and_the_finished_games_mark_the_bot_only(games, clients, players):
    lobby = clients["anna"].get("/").content.decode()
    rows = re.findall(r"<tr class=\"[^\"]*\">(.*?)</tr>", lobby, re.S)
    assert [MARK in row for row in rows if "Captain" in row] == [True]
    assert [marks(row) for row in rows if "bernd" in row] == [0]
    resign(games["bot"], players["anna"])
    resign(games["people"], players["anna"])
    finished = clients["anna"].get("/games/finished/").content.decode()
    rows = re.findall(r"<tr class=\"ended[^\"]*\">(.*?)</tr>", finished, re.S)
    assert len(rows) == 2
    assert [MARK in row for row in rows if "Captain" in row] == [True]
    assert [marks(row) for row in rows if "bernd" in row] == [0]


def test_the_ranking_and_the_rating_history_mark_the_bot(games, clients, players):
    resign(games["bot"], players["anna"])
    resign(games["people"], players["anna"])
    ranking = clients["carl"].get("/ranking/").content.decode()
    rows = {
        name: row
        for row in re.findall(r"<tr>(.*?)</tr>", ranking, re.S)
        for name in ("Captain", "anna", "bernd")
        if f">{name}</a>" in row
    }
    assert set(rows) == {"Captain", "anna", "bernd"}
    assert MARK in rows["Captain"]
    assert marks(rows["anna"]) == 0 and marks(rows["bernd"]) == 0
    history = clients["carl"].get("/users/anna/").content.decode()
    rated = re.search(r'<section class="panel" id="rating">(.*?)</section>', history, re.S)
    assert f"against Captain {MARK}" in rated.group(1) and marks(rated.group(1)) == 1


# -- the profiles and the replay -----------------------------------------------------------


def test_a_bots_profile_says_what_it_is_and_offers_no_block(games, clients):
    page = clients["anna"].get("/users/Captain/").content.decode()
    assert MARK in h1(page)
    assert "A computer opponent, level Captain: it cannot be messaged or logged into." in page
    assert "/block/" not in page
    person = clients["anna"].get("/users/bernd/").content.decode()
    assert marks(person) == 0 and "A computer opponent" not in person
    assert "/block/" in person  # a person can be blocked
    own = clients["anna"].get("/users/anna/").content.decode()
    games_panel = re.search(r"<h2>Current games</h2>(.*?)</section>", own, re.S).group(1)
    assert f"Captain</span> {MARK}" in games_panel and marks(games_panel) == 1


def test_the_replay_heading_marks_the_bot(games, clients, players):
    page = clients["anna"].get(f"/games/{games['bot'].pk}/replay/").content.decode()
    assert MARK in h1(page) and marks(page) == 1
    page = clients["anna"].get(f"/games/{games['people'].pk}/replay/").content.decode()
    assert marks(page) == 0
    resign(games["bot"], players["anna"])
    bot_side = clients["carl"].get(f"/games/{games['bot'].pk}/replay/?as=Captain")
    heading = h1(bot_side.content.decode())
    assert heading.index(MARK) < heading.index("anna")  # the bot's side comes first


# -- no chat against the computer ----------------------------------------------------------


def test_the_api_refuses_a_chat_line_in_a_bot_game_and_stores_nothing(games, clients):
    response = post(clients["anna"], f"/api/games/{games['bot'].pk}/chat/", {"text": "Ahoy"})
    assert response.status_code == 403
    error = response.json()["error"]
    assert error == {"code": "bot_game", "message": "A game against the computer has no chat."}
    assert not ChatMessage.objects.filter(game=games["bot"]).exists()
    assert clients["anna"].get(f"/api/games/{games['bot'].pk}/chat/").json() == {"chat": []}
    people = post(clients["anna"], f"/api/games/{games['people'].pk}/chat/", {"text": "Ahoy"})
    assert people.status_code == 201  # between people the chat is open


@pytest.mark.django_db(transaction=True)
async def test_the_socket_refuses_a_chat_line_in_a_bot_game(sockets, players):
    game = await database_sync_to_async(game_against)(players["anna"], await bot())
    socket, ok, _ = await sockets(f"/ws/games/{game.pk}/", players["anna"])
    assert ok
    state = check(await socket.receive_json_from(timeout=5))
    assert state["type"] == "state" and state["game"]["bots"]["opponent"] == "captain"
    await socket.send_json_to(check({"type": "chat", "text": "Ahoy"}, "client"))
    error = check(await socket.receive_json_from(timeout=5))
    assert error["type"] == "error" and error["code"] == "bot_game"
    assert error["message"] == "A game against the computer has no chat."
    assert await socket.receive_nothing(timeout=0.3)  # no chat line went out
    stored = await database_sync_to_async(ChatMessage.objects.filter(game=game).count)()
    assert stored == 0


@database_sync_to_async
def bot():
    return bot_of()
