"""Playing the computer: the bots' accounts, an invitation they accept at once, their
turns played by the worker through the same write path after a short pause, rated
games, and no timeouts for a bot."""

import random
import time
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
def test_a_whole_game_against_each_level_through_the_api(level, bot, clients, players, settings):
    settings.BOT_ADMIRAL_BUDGET_MS = 20  # the admiral thinks briefly: the same path, quicker
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
    assert "Admiral: plays every sensible move out hundreds of times" in page
    bad = clients["anna"].post("/play/computer/", {"level": "commodore"})
    assert bad.status_code == 302 and Game.objects.count() == 1


@pytest.mark.parametrize("budget", [250, 40])
def test_the_admiral_searches_until_its_budget_from_the_settings(
    budget, bot, clients, players, settings, monkeypatch
):
    settings.BOT_ADMIRAL_BUDGET_MS = budget
    asked = []

    def choose(state, seat, level, rng, **limits):
        asked.append((level, limits, time.monotonic()))
        return real(state, seat, "random", rng)

    real = bots.choose
    monkeypatch.setattr(bots, "choose", choose)
    for name in ("Admiral", "Captain"):
        game = start(clients["anna"], name)
        while game.to_move_id == players["anna"].pk:  # anna begins: she plays her turn
            state = game.rules_state()
            body = command_body(real(state, state.turn, "random", random.Random(1)), game.version)
            assert post(clients["anna"], f"/api/games/{game.pk}/commands/", body).status_code == 200
            game.refresh_from_db()
    assert play_bot_turns(now=timezone.now() + LATER) >= 4  # a turn of each
    admiral = [(limits, at) for level, limits, at in asked if level == "admiral"]
    others = [limits for level, limits, _ in asked if level != "admiral"]
    assert admiral and others
    for limits, at in admiral:
        assert set(limits) == {"deadline"}
        assert limits["deadline"] - at == pytest.approx(budget / 1000, abs=0.05)
    assert all(limits == {} for limits in others)  # the captain: its fixed work


def test_the_admirals_migration_names_it_apart_from_a_player_and_undoes_only_it(
    django_user_model,
):
    import importlib

    from django.apps import apps

    migration = importlib.import_module("accounts.migrations.0024_admiral_bot")
    django_user_model.objects.filter(bot_level="admiral").delete()
    django_user_model.objects.create_user("ADMIRAL", password="x")  # a player took the name
    migration.create_admiral(apps, None)
    migration.create_admiral(apps, None)  # once only
    admiral = django_user_model.objects.get(bot_level="admiral")
    assert admiral.username == "Admiral-bot" and not admiral.has_usable_password()
    migration.remove_admiral(apps, None)
    assert not django_user_model.objects.filter(bot_level="admiral").exists()
    left = django_user_model.objects.filter(bot_level__gt="")
    assert sorted(left.values_list("bot_level", flat=True)) == sorted(bots.LEVELS[:3])
    assert django_user_model.objects.filter(username="ADMIRAL").exists()
