"""What one player may start is bounded on every path: games against the computer (under
way at once, and an hour), the invitations a rematch counts in, and the analyses that
finished games cause (deferred, never dropped)."""

import dataclasses
import datetime as dt

import pytest
import time_machine
from django.contrib.auth import get_user_model

from games.models import Game, GameAnalysis, Invitation
from games.services import analysis, commands, invitations, limits
from shanghaien.lib.errors import RateLimited

from ..helpers.games import command_body, post

pytestmark = pytest.mark.django_db

HOUR = 3600
# A quarter past: the hour the tests run in does not turn while they run.
NOW = dt.datetime(2026, 3, 2, 12, 15, tzinfo=dt.UTC)


@pytest.fixture(autouse=True)
def frozen():
    with time_machine.travel(NOW, tick=False) as traveller:
        yield traveller


@pytest.fixture
def bot_name(django_user_model):
    return django_user_model.objects.get(bot_level="deckhand").username


def assert_refused(response, within: int) -> None:
    assert response.status_code == 429, response.content[:300]
    body = response.json()["error"]
    assert body["code"] == "rate_limited" and body["message"]
    retry = int(response["Retry-After"])
    assert 1 <= retry <= within and body["retry_after"] == retry


def start_bot_game(client, name) -> int:
    response = post(client, "/api/invitations/", {"to": name})
    assert response.status_code == 201, response.content
    return response.json()["game"]


def resign(client, game_id: int) -> None:
    version = client.get(f"/api/games/{game_id}/").json()["version"]
    response = post(
        client, f"/api/games/{game_id}/commands/", command_body({"type": "resign"}, version)
    )
    assert response.status_code == 200, response.content
    assert Game.objects.get(pk=game_id).status == Game.Status.FINISHED


def rematch(client, game_id: int):
    return post(client, f"/api/games/{game_id}/rematch/")


def computer_games() -> int:
    return Game.objects.filter(seats__user__bot_level__gt="").count()


# -- games against the computer -------------------------------------------------------------


def test_rematching_a_finished_bot_game_again_and_again_is_refused_after_the_limit(
    clients, bot_name
):
    anna = clients["anna"]
    game_id = start_bot_game(anna, bot_name)
    for _ in range(limits.COMPUTER_GAMES_PER_HOUR.count - 1):
        resign(anna, game_id)
        response = rematch(anna, game_id)
        assert response.status_code == 201, response.content
        game_id = response.json()["game"]
    resign(anna, game_id)
    before = (computer_games(), Invitation.objects.count())
    response = rematch(anna, game_id)
    assert_refused(response, HOUR)
    assert "10 games against the computer an hour" in response.json()["error"]["message"]
    # and on every other path that starts one
    assert_refused(post(anna, "/api/invitations/", {"to": bot_name}), HOUR)
    page = anna.post("/play/computer/", {"level": "boatswain"})
    assert page.status_code == 429 and int(page["Retry-After"]) <= HOUR
    assert "against the computer" in page.content.decode()
    assert (computer_games(), Invitation.objects.count()) == before
    # a person can still be invited: the bound is the computer's
    assert post(anna, "/api/invitations/", {"to": "bernd"}).status_code == 201


def test_inviting_bots_over_the_api_again_and_again_is_refused_after_the_limit(
    clients, django_user_model
):
    anna = clients["anna"]
    bots = list(django_user_model.objects.filter(bot_level__gt="").order_by("pk"))
    last = None
    for n in range(limits.COMPUTER_GAMES_PER_HOUR.count):
        last = start_bot_game(anna, bots[n % len(bots)].username)  # every level counts
        resign(anna, last)
    before = computer_games()
    for bot in bots:
        assert_refused(post(anna, "/api/invitations/", {"to": bot.username}), HOUR)
    assert_refused(rematch(anna, last), HOUR)
    assert computer_games() == before


def test_the_hourly_count_is_one_across_the_lobby_the_api_and_the_rematch(clients, bot_name):
    anna = clients["anna"]
    paths = 0
    while paths < limits.COMPUTER_GAMES_PER_HOUR.count:
        kind = paths % 3
        if kind == 0:
            game_id = start_bot_game(anna, bot_name)
        elif kind == 1:
            response = anna.post("/play/computer/", {"level": "deckhand"})
            assert response.status_code == 302, response.content[:300]
            game_id = Game.objects.order_by("-pk").values_list("pk", flat=True).first()
        else:
            response = rematch(anna, game_id)
            assert response.status_code == 201, response.content
            game_id = response.json()["game"]
        resign(anna, game_id)
        paths += 1
    assert_refused(rematch(anna, game_id), HOUR)
    assert anna.post("/play/computer/", {"level": "deckhand"}).status_code == 429


def test_a_few_games_against_the_computer_at_once_on_every_path(clients, bot_name):
    anna = clients["anna"]
    finished = start_bot_game(anna, bot_name)
    resign(anna, finished)
    under_way = [start_bot_game(anna, bot_name) for _ in range(limits.COMPUTER_GAMES_ACTIVE_MAX)]
    before = computer_games()
    response = post(anna, "/api/invitations/", {"to": bot_name})
    assert_refused(response, 60)
    assert "under way" in response.json()["error"]["message"]
    assert_refused(rematch(anna, finished), 60)
    assert anna.post("/play/computer/", {"level": "captain"}).status_code == 429
    assert computer_games() == before
    # a game with a person is no game against the computer
    assert post(anna, "/api/invitations/", {"to": "bernd"}).status_code == 201
    resign(anna, under_way[0])  # one over: room for one more
    assert rematch(anna, finished).status_code == 201
    assert_refused(post(anna, "/api/invitations/", {"to": bot_name}), 60)


# -- a rematch is an invitation ---------------------------------------------------------------


def new_game(players, a="anna", b="bernd") -> Game:
    return invitations.do_accept_invitation(invitations.do_invite(players[a], to=b).pk, players[b])


def resigned(game: Game, user) -> Game:
    commands.do_command(game.pk, user, {"type": "resign"}, game.version, "r")
    game.refresh_from_db()
    return game


def finished_game(players, a="anna", b="bernd") -> Game:
    return resigned(new_game(players, a, b), players[a])


def test_a_rematch_counts_in_the_invitations_an_hour(players, monkeypatch):
    game = finished_game(players)
    anna = players["anna"]
    for _ in range(limits.INVITATIONS_PER_HOUR.count - 1):  # the game's own was one
        invitations.do_cancel_invitation(invitations.do_invite(anna).pk, anna)
    with pytest.raises(RateLimited):
        invitations.do_rematch(game.pk, anna)
    assert not game.rematches.exists()


def test_a_rematch_counts_in_the_invitations_to_one_player_a_day(players, monkeypatch):
    hourly = limits.INVITATIONS_PER_HOUR
    monkeypatch.setattr(limits, "INVITATIONS_PER_HOUR", dataclasses.replace(hourly, count=99))
    anna, bernd = players["anna"], players["bernd"]
    game = finished_game(players)  # one invitation to bernd
    for _ in range(limits.INVITATIONS_TO_ONE_PER_DAY.count - 1):
        offer = invitations.do_rematch(game.pk, anna)
        invitations.do_decline_invitation(offer.pk, bernd)
    with pytest.raises(RateLimited) as refused:
        invitations.do_rematch(game.pk, anna)
    assert "same player" in refused.value.message
    assert game.rematches.count() == limits.INVITATIONS_TO_ONE_PER_DAY.count - 1
    # bernd may still offer one: the count is the sender's
    assert invitations.do_rematch(game.pk, bernd).status == Invitation.Status.OPEN


# -- analyses --------------------------------------------------------------------------------


@pytest.fixture
def unlimited(monkeypatch):
    for name in ("INVITATIONS_PER_HOUR", "INVITATIONS_TO_ONE_PER_DAY"):
        limit = getattr(limits, name)
        monkeypatch.setattr(limits, name, dataclasses.replace(limit, count=10**6))


def queued_at(game: Game) -> dt.datetime:
    return GameAnalysis.objects.get(game=game).finished_at


def test_analyses_past_the_hourly_bound_are_deferred_to_a_later_hour_not_dropped(
    players, unlimited
):
    dora = get_user_model().objects.create_user("dora")
    players = {**players, "dora": dora}
    games = [finished_game(players) for _ in range(limits.ANALYSES_PER_HOUR + 3)]
    assert all(g.status == Game.Status.FINISHED for g in games)  # the end was not held up
    on_time = games[: limits.ANALYSES_PER_HOUR]
    late = games[limits.ANALYSES_PER_HOUR :]
    assert all(queued_at(g) == NOW for g in on_time)
    next_hour = dt.datetime(2026, 3, 2, 13, 0, tzinfo=dt.UTC)
    assert [queued_at(g) for g in late] == [next_hour] * 3
    # bernd played every one of them: his next game waits too, whoever his opponent
    assert queued_at(finished_game(players, "carl", "bernd")) == next_hour
    # carl and dora have room: theirs does not
    assert queued_at(finished_game(players, "carl", "dora")) == NOW

    # the worker takes every analysis that may begin now, and none of the deferred
    for _ in range(200):
        analysis.do_analyse(budget=5)
    ready = set(GameAnalysis.objects.filter(status="ready").values_list("game_id", flat=True))
    assert {g.pk for g in on_time} <= ready and not {g.pk for g in late} & ready
    with time_machine.travel(next_hour, tick=False):
        for _ in range(200):
            analysis.do_analyse(budget=5)
    assert GameAnalysis.objects.exclude(status="ready").count() == 0


def test_an_hour_full_for_many_games_defers_to_the_hours_after(players, unlimited):
    games = [finished_game(players) for _ in range(3 * limits.ANALYSES_PER_HOUR + 1)]
    hours = sorted({queued_at(g) for g in games})
    assert hours == [NOW] + [dt.datetime(2026, 3, 2, h, 0, tzinfo=dt.UTC) for h in (13, 14, 15)]


def test_a_game_ends_and_its_analysis_is_queued_even_when_the_cache_fails(players, monkeypatch):
    def broken(*args, **kwargs):
        raise ConnectionError("the cache is away")

    game = new_game(players)
    monkeypatch.setattr(limits.cache, "incr", broken)
    game = resigned(game, players["anna"])
    assert game.status == Game.Status.FINISHED and queued_at(game) == NOW
