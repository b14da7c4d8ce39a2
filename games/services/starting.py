"""Starting games: one for an accepted invitation, many at once for a tournament.

``start_games`` writes any number of new games in a few statements (the games, their
seats, their first events: one INSERT each, in chunks), so that a tournament's round of
hundreds of games starts in one transaction. Each game's deck and first player are drawn
from its own seeds (``docs/fairness.md``): the invitation's server seed and both
players' seeds, or, for a game no player asked for (a tournament's), a new server seed
alone, committed as the game starts and published when it ends.

``NewGame.starter`` asks for a given player to begin (a tournament's match swaps the
starting player): the draw still decides which *seat* begins, and that player is given
the seat the draw chose, so the stream and its proof are the same as any game's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from shanghaien.lib.errors import BadRequest
from shanghaien.lib.statements import insert_rows

from .. import rules
from ..clock import NO_BANK, Bank
from ..live import broadcast
from ..models import Event, Game, Seat
from ..notify import queue as notify
from ..rules import fairness
from . import commitments, game_log

# Rows a single INSERT writes at most (SQLite's limit on a statement's parameters).
CHUNK = 400


@dataclass
class NewGame:
    """What a game starts with. ``players`` in the order of the seats wished (seat 0's
    client seed first); with ``starter`` (an index into ``players``), that player begins
    and the seats follow the draw."""

    players: Sequence
    extra_wild: bool = False
    rated: bool = True
    days_per_move: int = 3
    bank: Bank | None = None
    listed: bool = True
    starter: int | None = None
    # The server's seed and its commitment (an invitation's); None: a new one is made for
    # this game; "": none (an invitation from before the scheme: the system's randomness).
    fair_seed: str | None = None
    fair_commitment: str = ""
    fair_scheme: str = fairness.SCHEME
    client_seeds: list = field(default_factory=list)


def refuse_rated_bot_account(rated: bool, *players) -> None:
    """A game with a bot account is never rated (docs/bots.md, "Bring your own bot"):
    asking for a rated one is refused (400 ``bot_unrated``) on every path that starts or
    offers a game, and here, where every game starts."""
    if not rated:
        return
    for player in players:
        if player is not None and getattr(player, "bot_account", False):
            message = _(
                "%(name)s is a bot account: games with a bot account are never rated. "
                "Ask for a casual game ('rated': false)."
            )
            raise BadRequest("bot_unrated", message % {"name": player.username})


def _build(new: NewGame, now) -> tuple[Game, list, list[dict]]:
    """The unsaved game, its players in seat order and its first events."""
    seed, commitment, seeds = new.fair_seed, new.fair_commitment, list(new.client_seeds)
    if seed is None:
        seed = commitments.new_server_seed()
        commitment = fairness.commitment(bytes.fromhex(seed))
        seeds = ["", ""]
    game = Game(
        extra_wild=new.extra_wild,
        days_per_move=new.days_per_move,
        rated=new.rated,
        fair_seed=seed,
        fair_commitment=commitment,
        fair_scheme=new.fair_scheme,
        client_seeds=seeds,
        listed=new.listed,
        **(new.bank.fields() if new.bank else NO_BANK),
    )
    if new.bank is not None:
        game.banks = [new.bank.start_hours * 3600] * 2
    stream = game_log.stream_of(game)
    state, events = rules.new_game(stream, extra_wild=new.extra_wild)
    game_log.keep_position(game, stream)
    players = list(new.players)
    if new.starter is not None:
        first = events[0]["first_player"]
        players[first], players[1 - first] = players[new.starter], players[1 - new.starter]
    game.last_move_at = now  # the snapshot is written by store_state
    game.version = len(events)
    game_log.store_state(game, state, players, now)
    return game, players, events


def start_games(new_games: Sequence[NewGame], now=None, tell: bool = True) -> list[Game]:
    """Start every game of ``new_games`` (inside the caller's transaction): the games,
    their seats and first events written in a few statements. ``tell``: queue "your
    turn" for each game's first mover (a tournament tells its players once instead).
    After the commit, each player's lobby hears once, whatever the number of games."""
    now = now or timezone.now()
    for new in new_games:
        refuse_rated_bot_account(new.rated, *new.players)
    built = [_build(new, now) for new in new_games]
    games = Game.objects.bulk_create([game for game, _players, _events in built])
    seats, rows = [], []
    for game, players, events in built:
        seats += [Seat(game=game, user=player, seat=i) for i, player in enumerate(players)]
        for seq, event in enumerate(events, start=1):
            payload = {k: v for k, v in event.items() if k != "type"}
            rows.append((game.pk, seq, event["type"], payload, None))
    Seat.objects.bulk_create(seats, batch_size=CHUNK)
    for start in range(0, len(rows), CHUNK):
        insert_rows(Event, game_log.EVENT_FIELDS, rows[start : start + CHUNK])
    told: dict[int, tuple[int, int]] = {}  # a player's lobby: one game of theirs to name
    for game, players, _events in built:
        if tell:
            notify.your_turn(game)
        for player in players:
            told[player.pk] = (game.pk, game.version)
    transaction.on_commit(lambda: broadcast.games_started(told))
    return games


def start_game(new: NewGame, now=None, tell: bool = True) -> Game:
    """Start one game: ``start_games`` of one."""
    return start_games([new], now=now, tell=tell)[0]
