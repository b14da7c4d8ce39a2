"""Writing a game's log: append its events, keep the snapshot and its copies in step.

Used by every service that changes a game; nothing else writes ``Event`` or
``Game.state``.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from shanghaien.lib.statements import insert_rows, update_row

from .. import clock, rules
from ..models import Command, Event, Game
from ..rules import fairness
from . import player_records

# A game from before provably fair dice (no seed) draws from the operating system's
# randomness; every other game from its seeds (rules/fairness.py).
rng = secrets.SystemRandom()


def stream_of(game: Game):
    """The game's rng, where its next draw is: its seeds' stream, or the system's."""
    if not game.fair_seed:
        return rng
    key, seeds = bytes.fromhex(game.fair_seed), game.client_seeds
    return fairness.Stream(key, seeds, game.fair_position, scheme=game.fair_scheme)


def keep_position(game: Game, stream) -> None:
    """After drawing: where the game's stream stands now."""
    if isinstance(stream, fairness.Stream):
        game.fair_position = stream.position


@dataclass(frozen=True)
class Change:
    """What storing a new state changed besides the board."""

    turn_began: bool  # a (new) player is to move: their clock started
    result_arrived: bool  # the game ended just now


# What an app above games does as a game ends, in the transaction that ends it, after
# the seats and the players' records are written: each is called with the game (its
# result set, not yet saved) and its players in seat order. A tournament registers one
# (``tournaments.apps``) to count the game in its match and standings: games know no
# tournament.
ended_hooks: list = []

EVENT_FIELDS = ("game", "seq", "kind", "payload", "seat")
# What a change of state writes to the game's row: every field but its id and birth.
# (The seeds are written once, when the game starts: a move leaves them out.)
GAME_FIELDS = tuple(
    f.name
    for f in Game._meta.concrete_fields
    if f.name
    not in ("id", "created_at", "fair_seed", "fair_commitment", "fair_scheme", "client_seeds")
)


def append_events(game: Game, events: list[dict], seat: int | None) -> None:
    rows = []
    for event in events:
        game.version += 1
        payload = {k: v for k, v in event.items() if k != "type"}
        rows.append((game.pk, game.version, event["type"], payload, seat))
    insert_rows(Event, EVENT_FIELDS, rows)


def save_game(game: Game) -> None:
    """Write the game's row after a change of state (what ``game.save()`` writes)."""
    update_row(game, GAME_FIELDS)


def store_state(game: Game, state: rules.GameState, players, now) -> Change:
    """Keep the snapshot and its queryable copies (turn, clock, result) in step with the state;
    when the game ends, also its seats' end and the players' records (``records``).

    The caller saves ``game``; what follows from the change (an email, a rating) is the
    caller's to do, by name, from the ``Change`` returned.
    """
    previous = game.to_move_id
    seat = _seat_of(previous, players)
    if seat is not None and state.turn != seat and state.result is None:
        # the mover's turn ends: a bank game keeps what was left of it (the game's end
        # leaves the banks as they are)
        clock.end_turn(game, seat, now, players[seat])
    game.state = rules.state_to_json(state)
    game.__dict__["_rules_state"] = (game.state, state)  # what rules_state() would parse
    game.round = max(state.round, 1)
    game.to_move = players[state.turn] if state.turn is not None else None
    turn_began = False
    if game.to_move_id != previous:  # a new turn: a new clock
        game.turn_number += 1
        game.turn_started_at = now
        game.extended = False
        game.deadline = now + clock.turn_time(game, state.turn) if game.to_move else None
        turn_began = game.to_move is not None
    result = state.result
    arrived = False
    if result is not None:
        arrived = game.status == Game.Status.ACTIVE
        game.status = {
            "aborted": Game.Status.ABORTED,
            "annulled": Game.Status.ANNULLED,
        }.get(result.reason, Game.Status.FINISHED)
        game.winner = players[result.winner] if result.winner is not None else None
        game.result_reason = result.reason
        game.score0, game.score1 = (s.total for s in result.scores)
        game.finished_at = now
        game.deadline = None
        game.listed = False  # off the page of live games
        if arrived:
            player_records.game_ended(game, players)
            for hook in ended_hooks:
                hook(game, players)
    if game.to_move_id != previous or result is not None:
        # The mover's holidays are not read on a move: they can only put the deadline
        # later, so this is never late, and the job folds them in when it wakes (once a
        # turn at most, for a mover away). A holiday declared meanwhile recomputes it.
        game.due_at = clock.next_due(game, game.deadline, now)
    return Change(turn_began=turn_began, result_arrived=arrived)


def _seat_of(user_id: int, players) -> int | None:
    for seat, player in enumerate(players):
        if player.pk == user_id:
            return seat
    return None


def replay_events(game: Game) -> rules.GameState:
    """The state folded from the stored log (the snapshot must equal it)."""
    return rules.replay(e.as_rules_event() for e in game.events.order_by("seq"))


COMMAND_FIELDS = ("game", "seat", "client_id", "command", "version")


def record_command(game: Game, seat: int, client_id: str, command) -> None:
    """The command that moved the game to its current version; a ``client_id`` used before
    in this game raises ``IntegrityError``."""
    insert_rows(Command, COMMAND_FIELDS, [(game.pk, seat, client_id, command, game.version)])
