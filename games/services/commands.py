"""A player's command: the only way a game changes by the rules."""

from __future__ import annotations

from dataclasses import dataclass

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from accounts import guest_accounts
from shanghaien.lib import metrics
from shanghaien.lib.errors import BadRequest, Conflict, Illegal, ServiceError
from shanghaien.lib.input import is_client_id

from .. import rules
from ..access import Seating, access_game
from ..live import broadcast
from ..models import Command, Game
from ..notify import queue as notify
from ..rules.shapes import parse_command
from . import endings, game_log


@dataclass(frozen=True)
class Outcome:
    seating: Seating  # the game as the player sees it, right after the command
    version: int  # the game's version right after the command
    duplicate: bool  # a retry of a command already applied: nothing was applied now
    previous: int | None = None  # the version the command was applied to (None: a duplicate)
    events: tuple = ()  # (seq, event) of each event the command appended

    @property
    def game(self) -> Game:
        return self.seating.game


def check_command_request(command, expected_version, client_id) -> None:
    if not isinstance(command, dict):
        raise BadRequest("bad_request", _("'command' is a JSON object with a 'type'."))
    if isinstance(expected_version, bool) or not isinstance(expected_version, int):
        raise BadRequest("bad_request", _("'expected_version' is the version the command is for."))
    if not is_client_id(client_id):
        raise BadRequest(
            "bad_request", _("'client_id' is 1–64 letters, digits or - _ . : (a UUID is best).")
        )


def refusal(command, expected_version, client_id) -> ServiceError:
    """Why a command request its declaration refuses (``games.socket_messages``) is
    refused, in the words of the checks that ``do_command`` makes: nothing is read."""
    try:
        check_command_request(command, expected_version, client_id)
        parse_command(command)
    except ServiceError as error:
        return error
    except rules.IllegalCommand as error:
        return Illegal(error.code, error.message)
    # the one case the checks above let through: a version below 0
    return BadRequest("bad_request", _("'expected_version' is the version the command is for."))


def do_command(game_id, user, command, expected_version, client_id) -> Outcome:
    """Apply one player's command, exactly once per ``client_id``.

    Four statements when all goes well: the game with its seats and players, locked; the
    events; the game; the command. A ``client_id`` is looked up only when the version is
    not the game's (a retry of an applied command always is: the command moved the game
    on); the unique constraint on (game, client_id) catches every other reuse. A guest's
    move takes a fifth, which puts its account's expiry off (accounts.guest_accounts).
    """
    check_command_request(command, expected_version, client_id)
    try:
        return _apply(game_id, user, command, expected_version, client_id)
    except IntegrityError:
        # The client_id was used at this very version: the transaction rolled back.
        seating = access_game(user, game_id, must_play=True)
        applied = Command.objects.filter(game=seating.game, client_id=client_id).first()
        if applied is None:
            raise
        return _retried(seating, applied, command)


def _retried(seating: Seating, applied: Command, command) -> Outcome:
    """The answer to a command whose ``client_id`` was applied before."""
    if applied.seat != seating.seat or applied.command != command:
        raise Conflict("client_id_reused", _("This client_id was used for another command."))
    return Outcome(seating, applied.version, duplicate=True)


def _apply(game_id, user, command, expected_version, client_id) -> Outcome:
    with transaction.atomic():
        seating = access_game(user, game_id, lock=True, must_play=True)
        game, seat = seating.game, seating.seat
        if expected_version != game.version:
            applied = Command.objects.filter(game=game, client_id=client_id).first()
            if applied is not None:
                return _retried(seating, applied, command)
            message = _("The game is at version %(version)d, not %(expected)d: resync.")
            raise Conflict(
                "stale_version", message % {"version": game.version, "expected": expected_version}
            )
        state = game.rules_state()
        stream = game_log.stream_of(game)
        try:
            events = rules.decide(state, seat, command, stream)
        except rules.IllegalCommand as error:
            applied = Command.objects.filter(game=game, client_id=client_id).first()
            if applied is not None:  # a reused client_id says so before the rules do
                return _retried(seating, applied, command)
            raise Illegal(error.code, error.message) from None
        for event in events:
            state = rules.evolve(state, event)
        now = timezone.now()
        first = game.version + 1
        game_log.append_events(game, events, seat=seat)
        change = game_log.store_state(game, state, seating.players, now)
        game.last_move_at = now
        game_log.keep_position(game, stream)
        game_log.save_game(game)
        game_log.record_command(game, seat, client_id, command)
        guest_accounts.renew(seating.players[seat], now)  # a guest's move: it lives on
        if change.turn_began:
            notify.your_turn(game)
        if change.result_arrived:
            endings.rate(game, seating.players)
        version, to_move = game.version, game.to_move_id
        players = [p.pk for p in seating.players]
        transaction.on_commit(
            lambda: broadcast.game_changed(game.pk, version, players=players, to_move=to_move)
        )
        by_bot = bool(user.bot_level)
        transaction.on_commit(lambda: metrics.move_applied(by_bot))  # counted once it holds
    appended = tuple(zip(range(first, version + 1), events, strict=True))
    return Outcome(seating, version, False, expected_version, appended)
