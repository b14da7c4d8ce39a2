"""Playing the computer: the bots' accounts, an invitation they accept at once, their
turns played by the worker through the same write path after a short pause, rated
games, and no timeouts for a bot."""

import random
from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.models import BOT_LEVELS
from games import bots
from games.bot_turns import play_bot_turns
from games.jobs import check_deadlines
from games.models import Command, Game, Invitation
from games.notify.preferences import wants

from ..helpers.games import command_body, post

pytestmark = pytest.mark.django_db

LATER = timedelta(seconds=5)


@pytest.fixture
def bot(django_user_model):
    return lambda level: django_user_model.objects.get(bot_level=level)


def start(client, name, **terms) -> Game:
    response = post(client, "/api/invitations/", {"to": name, **terms})
    assert response.status_code == 201, response.content
    invitation = response.json()
    assert invitation["status"] == "accepted" and invitation["game"]
    return Game.objects.get(pk=invitation["game"])


def test_one_bot_per_level_that_nobody_can_log_in_as(bot, client):
    assert [level for level, _ in BOT_LEVELS] == list(bots.LEVELS)
    for level in bots.LEVELS:
        account = bot(level)
        assert account.is_computer and account.username == level.capitalize()
        assert not account.has_usable_password() and not wants(account, "invitation", "email")
        assert not client.login(username=account.username, password="!")
        page = client.post("/accounts/login/", {"login": account.username, "password": "!"})
        assert "_auth_user_id" not in client.session, page


def test_a_bot_accepts_at_once_and_moves_after_its_pause(bot, clients, players):
    game = start(clients["anna"], "Captain")
    captain = bot("captain")
    assert {s.user_id for s in game.seats.all()} == {players["anna"].pk, captain.pk}
    assert game.rated
    while game.to_move_id != captain.pk:  # anna begins: she plays her turn
        state = game.rules_state()
        command = bots.choose(state, state.turn, "random", random.Random(1))
        body = command_body(command, game.version)
        assert post(clients["anna"], f"/api/games/{game.pk}/commands/", body).status_code == 200
        game.refresh_from_db()
    begun = game.turn_started_at
    assert play_bot_turns(now=begun + timedelta(seconds=0.5)) == 0  # still pausing
    assert play_bot_turns(now=begun + LATER) >= 2  # a roll and a placement at least
    game.refresh_from_db()
    assert game.to_move_id == players["anna"].pk
    seat = game.seats.get(user=captain).seat
    assert Command.objects.filter(game=game, seat=seat).count() >= 2


@pytest.mark.parametrize("level", bots.LEVELS)
def test_a_whole_game_against_each_level_through_the_api(level, bot, clients, players):
    game = start(clients["anna"], level.capitalize(), extra_wild=level == "boatswain")
    rng = random.Random(level)
    for _ in range(500):
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE:
            break
        if game.to_move_id == players["anna"].pk:
            view = clients["anna"].get(f"/api/games/{game.pk}/").json()["view"]
            choices = [c for c in view["legal"] if c["type"] not in ("resign", "abort")]
            body = command_body(rng.choice(choices), game.version)
            assert post(clients["anna"], f"/api/games/{game.pk}/commands/", body).status_code == 200
        else:
            assert play_bot_turns(now=timezone.now() + LATER) >= 1
    assert game.status == Game.Status.FINISHED and game.result_reason == "completed"
    ratings = clients["anna"].get(f"/api/games/{game.pk}/").json()["ratings"]
    assert ratings is not None  # rated: the bot's rating moved too


def test_a_bot_never_runs_out_of_time(bot, clients, players):
    game = start(clients["anna"], "Deckhand")
    deckhand = bot("deckhand")
    if game.to_move_id != deckhand.pk:
        state = game.rules_state()
        while game.to_move_id != deckhand.pk:
            state = game.rules_state()
            command = bots.choose(state, state.turn, "random", random.Random(2))
            post(
                clients["anna"],
                f"/api/games/{game.pk}/commands/",
                command_body(command, game.version),
            )
            game.refresh_from_db()
    clock = clients["anna"].get(f"/api/games/{game.pk}/").json()["clock"]
    assert not clock["can_extend"]  # the board offers no extra day for the computer
    refused = post(clients["anna"], f"/api/games/{game.pk}/extend/", {})
    assert refused.status_code == 409 and refused.json()["error"]["code"] == "bot_has_time"
    game.refresh_from_db()
    assert not game.extended
    Game.objects.filter(pk=game.pk).update(deadline=timezone.now() - timedelta(days=1))
    assert check_deadlines(now=timezone.now())["timeouts"] == 0
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE


def test_play_the_computer_from_the_lobby(bot, clients):
    page = clients["anna"].get("/").content.decode()
    assert 'action="/play/computer/"' in page
    assert "Boatswain: judges every move by its position" in page
    response = clients["anna"].post("/play/computer/", {"level": "boatswain", "extra_wild": "on"})
    game = Game.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/games/{game.pk}/"
    assert game.extra_wild and bot("boatswain").pk in {s.user_id for s in game.seats.all()}
    assert Invitation.objects.get().status == Invitation.Status.ACCEPTED
    bad = clients["anna"].post("/play/computer/", {"level": "admiral"})
    assert bad.status_code == 302 and Game.objects.count() == 1
