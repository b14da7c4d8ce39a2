"""Several workers share the computer opponents' turns: real ``manage.py run_worker --job
bots`` processes on the PostgreSQL test database. Each turn is claimed by one worker (the
game row's lock, skipped by the others), so no turn is computed twice; a worker killed
in the middle of a turn leaves nothing of it behind, and another plays it."""

from __future__ import annotations

import random
import re
import signal
import time
import uuid
from collections import Counter

import pytest
from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Count

from games import bots
from games.bot_turns import play_bot_turns
from games.models import Command, Game, Invitation
from games.services import commands, commitments, invitations
from tests.helpers.slow_mail import noted

from .test_worker_stop import STOP_LIMIT, Worker, pending_emails

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("postgres_only")]

# A worker's line for each turn it claims (at DEBUG): the game and its version then.
CLAIM = re.compile(r"bot (\w+) plays turn (\d+) of game (\d+) at version (\d+)")
FAST = {"BOT_PAUSE_SECONDS": "0", "BOT_TICK_SECONDS": "0.02", "DJANGO_LOG_LEVEL": "DEBUG"}


def bot_games(count: int, first: str = "deckhand", second: str = "boatswain") -> list[Game]:
    """``count`` games between two computer opponents, started by the services.

    The invitations are written as rows: a bot sends none of its own, and the rate
    limits of invitations (a person's) would stop a series of them.
    """
    # A transactional test's flush removed the accounts the migrations made.
    users = get_user_model().objects
    inviter, _ = users.get_or_create(username=first.capitalize(), bot_level=first)
    invited, _ = users.get_or_create(username=second.capitalize(), bot_level=second)
    games = []
    for _ in range(count):
        with transaction.atomic():
            fair = commitments.take(inviter, "", None)
            invitation = Invitation.objects.create(from_user=inviter, to_user=invited, **fair)
        games.append(invitations.do_accept_invitation(invitation.pk, invited))
    return games


@pytest.fixture
def workers(tmp_path):
    started = []

    def start(name: str, *args, **env) -> Worker:
        folder = tmp_path / name
        folder.mkdir()
        worker = Worker(folder, "--job", "bots", "--name", name, *args, **{**FAST, **env})
        started.append(worker)
        return worker

    yield start
    for worker in started:  # a failed test leaves no process behind
        worker.kill()


def claims(worker: Worker) -> list[tuple[int, int]]:
    """(game, version) of each turn the worker claimed."""
    return [(int(m[3]), int(m[4])) for m in CLAIM.finditer(worker.said())]


def all_over(games: list[Game]) -> bool:
    """every game over"""
    return not Game.objects.filter(pk__in=[g.pk for g in games], status="active").exists()


def doubled_commands() -> list:
    """(game, version) of Command rows that share both: a move recorded twice."""
    rows = Command.objects.values("game", "version").annotate(n=Count("id")).filter(n__gt=1)
    return list(rows)


def test_two_workers_share_the_bots_turns_and_never_compute_one_twice(workers):
    games = bot_games(12)
    first, second = workers("w1"), workers("w2")
    first.wait_for(lambda: all_over(games), timeout=240)
    for worker in (first, second):
        status, _ = worker.stop(signal.SIGTERM)
        assert status == 0, worker.said()
    said = first.said() + second.said()
    # The old way: both workers computed the same turn, and one was refused its command.
    assert "stale_version" not in said
    assert "Traceback" not in said
    both = Counter(claims(first) + claims(second))
    assert [turn for turn, n in both.items() if n > 1] == []  # no turn computed twice
    assert claims(first) and claims(second)  # both worked
    assert doubled_commands() == []
    for game in Game.objects.filter(pk__in=[g.pk for g in games]):
        assert game.status == Game.Status.FINISHED and game.result_reason == "completed"
        # Every turn of the game was claimed once: the position each began from.
        played = {version for (pk, version) in both if pk == game.pk}
        assert len(played) >= game.turn_number - 1


def row_is_claimed(game: Game) -> bool:
    """the game's row is locked by a worker"""
    with transaction.atomic():
        free = Game.objects.filter(pk=game.pk).select_for_update(skip_locked=True)
        return not free.exists()


def test_a_killed_workers_turn_is_played_by_the_other_and_the_game_goes_on(workers):
    (game,) = bot_games(1)
    # A worker whose bot thinks for a minute over each command: it claims the first turn
    # and holds it.
    slow = workers("slow", settings="tests.helpers.slow_bot_settings", SLOW_BOT_SECONDS="60")
    slow.wait_for(lambda: claims(slow), timeout=60)
    assert claims(slow) == [(game.pk, game.version)]
    assert row_is_claimed(game)
    other = workers("other")
    other.wait_for(lambda: "bots: 0 in " in other.said())  # it passed over the claimed turn
    assert claims(other) == []
    slow.process.send_signal(signal.SIGKILL)
    slow.process.wait()
    # Its transaction rolled back with its connection: the other plays the turn, from
    # the position the killed worker had claimed, and then the rest of the game.
    other.wait_for(lambda: (game.pk, game.version) in claims(other), timeout=60)
    other.wait_for(lambda: all_over([game]), timeout=120)
    status, _ = other.stop(signal.SIGTERM)
    assert status == 0, other.said()
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED and game.result_reason == "completed"
    assert Command.objects.filter(game=game).count() > 0 and doubled_commands() == []
    mine = claims(other)
    assert len(mine) == len(set(mine))
    assert "stale_version" not in other.said()
    # The log folds into the snapshot (checked after every test): no move lost or doubled.


def play_until_the_bot_is_on_turn(game: Game, player) -> None:
    """``player`` plays random legal commands until the bot is to move."""
    rng = random.Random(7)
    game.refresh_from_db()
    while game.to_move_id == player.pk:
        state = game.rules_state()
        command = bots.choose(state, state.turn, "random", rng)
        commands.do_command(game.pk, player, command, game.version, str(uuid.uuid4()))
        game.refresh_from_db()


def test_a_bots_turn_does_not_wait_behind_a_slow_mail_server(workers, tmp_path, players):
    anna = players["anna"]
    get_user_model().objects.get_or_create(username="Deckhand", bot_level="deckhand")
    game = invitations.do_invite(anna, to="Deckhand").game  # the bot has seat 1
    play_bot_turns(pause=0)  # if the bot begins: anna is to move
    addresses = pending_emails(game, 30)  # 30 s of sending at 1 s an email
    mail_log = tmp_path / "mail.log"
    worker = workers(
        "mail",
        "--job",
        "notifications",
        settings="tests.helpers.worker_settings",
        SLOW_MAIL_LOG=str(mail_log),
        SLOW_MAIL_SECONDS="1",
    )
    worker.wait_for(lambda: len(noted(mail_log, "begin")) >= 2)  # the emails job is busy
    bot_commands = Command.objects.filter(game=game, seat=1).count()
    play_until_the_bot_is_on_turn(game, anna)

    def bot_played():
        """the bot played its turn"""
        game.refresh_from_db()
        return game.to_move_id == anna.pk or game.status != Game.Status.ACTIVE

    worker.wait_for(bot_played, timeout=25)
    # The emails job was still in hand: the bot's turn did not wait for it to end.
    assert len(noted(mail_log, "sent")) < len(addresses)
    assert Command.objects.filter(game=game, seat=1).count() > bot_commands
    status, seconds = worker.stop(signal.SIGTERM)
    assert status == 0, worker.said()
    assert seconds < STOP_LIMIT
    assert "stopped " in worker.said() and "abandoned" not in worker.said()


def test_a_moderator_waits_for_the_claimed_turn_then_annuls_the_game(workers, players, moderator):
    from moderation.services import do_annul

    anna = players["anna"]
    get_user_model().objects.get_or_create(username="Deckhand", bot_level="deckhand")
    game = invitations.do_invite(anna, to="Deckhand").game  # the bot has seat 1
    play_bot_turns(pause=0)
    play_until_the_bot_is_on_turn(game, anna)
    bot_commands = Command.objects.filter(game=game, seat=1).count()
    # The bot thinks 2 s over each command: the annulment comes in the middle of its turn.
    slow = workers("slow", settings="tests.helpers.slow_bot_settings", SLOW_BOT_SECONDS="2")
    slow.wait_for(lambda: claims(slow), timeout=60)
    assert claims(slow) == [(game.pk, game.version)] and row_is_claimed(game)
    do_annul(game.pk, moderator, "a test of the lock")  # waits for the turn's commit
    game.refresh_from_db()
    assert game.status == Game.Status.ANNULLED
    # The whole turn came first, then the annulment: the log ends with it.
    assert Command.objects.filter(game=game, seat=1).count() > bot_commands
    assert game.events.order_by("seq").last().kind == "game_ended"
    status, _ = slow.stop(signal.SIGTERM)
    assert status == 0, slow.said()
    assert "Traceback" not in slow.said() and len(claims(slow)) == 1


def test_a_stop_abandons_a_bots_turn_past_the_grace_and_rolls_it_back(workers):
    (game,) = bot_games(1)
    # A bot that thinks 6 s over each command: stopped a second after its first command,
    # in the middle of the second, which ends long after the grace.
    slow = workers("slow", settings="tests.helpers.slow_bot_settings", SLOW_BOT_SECONDS="6")
    slow.wait_for(lambda: claims(slow), timeout=60)
    time.sleep(7)
    status, seconds = slow.stop(signal.SIGTERM)
    assert status == 0, slow.said()
    assert seconds < STOP_LIMIT
    assert "abandoned the job bots in hand" in slow.said()
    game.refresh_from_db()
    assert not Command.objects.filter(game=game).exists()  # nothing of the turn was kept
    assert not row_is_claimed(game)  # the next worker plays it
