"""The read cache: what a game's boards show, read once per version and kept per process.

The JSON shapes are ``games/serializers.py``'s (functions of a game and a read, no
keeping); sending the notices that tell processes of a change is ``broadcast.py``'s.
This module is the only place that keeps a read, and these are all its rules. Each is
enforced where the code says ``rule N``.

What is kept, keyed by what
  ``FRAMES.reads[game_id]``: one ``GameRead`` per game, in this process's memory: the
  game row with both players (``access_game``), a ``GameReads`` (the recent commands
  and their events, both players' holidays, the chat, the annulling moderator's note,
  and once the game is over the rematch offer and the rating changes), the generation
  it was read in, and the encoded ``state`` frames by (side, language). ``GameReads.told``
  keeps each recent command in words by (language, version). A read is of one version
  (``Game.version``, the seq of the last event) and one generation.

The rules
  1. Only games with a socket in this process are kept: ``join`` and ``leave`` count
     them, and the last socket to leave drops the game's read, generation and count. A
     read finished after that is not kept.
  2. A new event makes a new version. The service that appends it announces
     ``game.updated`` with the version to the group ``game.<id>`` after its commit
     (``broadcast.game_changed``); each socket that has not sent that version asks
     ``at_least(version)``: the kept read if it is that version or newer, else one read
     for every socket of the process that waits, of what was written since the kept
     read (``read_since``: the game, the commands and the events, three queries) or, with
     nothing kept, of the whole game (``read_game``, five).
  3. The process that applied a command reads nothing: ``advance`` makes the new
     version's read from the kept read of the version the command was applied to and
     the events it appended (``read_after_command``). Only from that exact version and
     generation, and never for a retry (a duplicate appends nothing); otherwise nothing
     is made and rule 2 reads.
  4. A kept read only moves forward: a read replaces it when its version is the same or
     newer, so a read that finishes late never puts an older version back.
  5. A change outside the event log keeps the version: a holiday declared, changed or
     cancelled (``games/holiday_clocks.py``), the waiting player's extra day
     (``endings.do_extend``), a rematch offered or answered (``services/invitations.py``).
     These announce the game with ``force``: every socket reads afresh (``fresh``), and
     that read replaces the kept one (rule 4: same version). Connecting and ``sync`` read
     afresh as well. Whatever a move, a holiday or an extra day changes in the clock is
     on the game row or in the holidays, both read again here.
  6. The chat changes without a version: a line said (``chat.message``) or hidden by a
     moderator (``chat.hidden``) reaches the group, and each socket calls ``stale``: the
     kept read is dropped and the generation counts up. A read begun in an older
     generation is not kept (rule 4's ``_keep``), nor made into a newer one (rules 2
     and 3).
  7. A game that is over is read whole: ``read_after`` makes nothing for a game no longer
     active, since its end brings what no event says (the rating changes, written in the
     transaction that ends it; the rematch offer; the server seed; a moderator's note).
     Every end appends ``game_ended`` and so announces a version (rule 2): the last move,
     a resignation, a timeout of the deadline job, a moderator's annulment or
     adjudication, a suspension's adjudications (``endings.end_by_server``). Nor is a
     read made from an earlier one before the first command, whose opening events the
     read did not hold.
  8. What ``read_after`` carries over from the earlier read: the chat (rule 6 drops a read
     whose chat changed), the holidays (rule 5 announces a change; those that ended before
     the turn began, or before today, fall away) and the words of the commands still
     recent (``told``: those below the oldest recent command fall away).
  9. The day: ``today`` (which holidays show as "away") is the read's day, taken again by
     every read and ``read_after``; a read kept across midnight shows a holiday that just
     ended until the game's next version or announcement.
  10. Encoded frames are kept only for a shared read (``at_least``): a read made for one
      socket (connecting, ``sync``, ``force``) is kept but its frames are not, since no
      other socket asks for them and an idle board would hold a few KiB for nothing.
  11. Nothing survives the process: a restart starts empty, and the sockets that
      reconnect read afresh (rule 5). Processes share nothing but the notices of rules 2,
      5 and 6, through the channel layer (Redis pub/sub with ``REDIS_URL``), which
      reaches the sockets subscribed when it is published: a socket that was not
      reconnects and reads afresh, and a client that sees a gap in the versions asks
      for ``sync``.
"""

from __future__ import annotations

import asyncio
import datetime as dt
from collections import Counter
from dataclasses import dataclass, field

import orjson
from django.utils import timezone
from django.utils.translation import get_language

from accounts.models import Holiday
from ratings.queries import rating_changes
from shanghaien.lib.sockets import database_sync_to_async

from ..access import Seating, access_game
from ..models import Command, Event, Game, Invitation
from ..serializers import RECENT_COMMANDS, ending_note, game_json, recent_chat

WATCHER = "watcher"


@dataclass(frozen=True)
class GameReads:
    """What a game's JSON needs besides the game and its players, read once for every
    viewer: the recent commands and their events, both players' holidays, the chat, and
    once the game is over the rematch offer and the rating changes."""

    commands: list  # the recent commands, newest first: {"seat", "version"}
    events: list  # (seq, event) after the oldest of them
    floor: int
    holidays: list
    chat: list
    rematch: Invitation | None
    ratings: dict | None
    today: dt.date
    # Each recent command in words, by (language, version): the same for every side, and
    # for every later read that still shows the command (rule 8).
    told: dict = field(default_factory=dict)
    # The reason a moderator gave for annulling the game ("" for every other game).
    note: str = ""


def _floor(commands: list) -> int:
    """The version before the oldest recent command: its events start after it."""
    return commands[-1]["version"] if len(commands) > RECENT_COMMANDS else 0


def _holidays_since(game: Game, today: dt.date) -> dt.date:
    """The holidays that end on or after this day matter: the deadline and the "away"
    notes need them."""
    return min(today, game.turn_started_at.date()) if game.turn_started_at else today


def read_game(seating: Seating) -> GameReads:
    """Five queries for a game in progress (seven once it is over, eight if annulled),
    whoever reads it."""
    game = seating.game
    commands = list(
        Command.objects.filter(game=game)
        .order_by("-version")
        .values("seat", "version")[: RECENT_COMMANDS + 1]
    )
    floor = _floor(commands)
    events = Event.objects.filter(game=game, seq__gt=floor).order_by("seq")
    today = timezone.now().date()  # rule 9
    since = _holidays_since(game, today)
    ids = [p.pk for p in seating.players]
    over = game.status != Game.Status.ACTIVE
    return GameReads(
        commands=commands,
        events=[
            (seq, {"type": kind, **payload})
            for seq, kind, payload in events.values_list("seq", "kind", "payload")
        ]
        if commands
        else [],
        floor=floor,
        holidays=list(Holiday.objects.filter(user_id__in=ids, end__gte=since)),
        chat=recent_chat(game),
        rematch=game.rematches.order_by("-created_at").first() if over else None,
        ratings=rating_changes(game),
        today=today,
        note=ending_note(game),
    )


def game_now(seating: Seating) -> dict:
    """The game's JSON for one viewer from a read made now, kept nowhere: a page or an
    API answer (the sockets share ``FRAMES`` instead)."""
    return game_json(seating, read_game(seating))


def read_after(reads: GameReads, game: Game, commands: list, events: list) -> GameReads | None:
    """What ``read_game`` would read now, from an earlier read of the same game and what
    was written since: ``commands``, newest first, as ``read_game`` reads them, and all
    the events after that read's version, as (seq, event) in order.

    None where that cannot be told without reading more (rule 7). The chat and the
    holidays are carried over (rule 8).
    """
    if game.status != Game.Status.ACTIVE or not reads.commands:  # rule 7
        return None
    commands = [*commands, *reads.commands][: RECENT_COMMANDS + 1]
    floor = _floor(commands)
    today = timezone.now().date()  # rule 9
    since = _holidays_since(game, today)
    return GameReads(
        commands=commands,
        events=[(seq, e) for seq, e in [*reads.events, *events] if seq > floor],
        floor=floor,
        holidays=[h for h in reads.holidays if h.end >= since],  # rules 5 and 8
        chat=reads.chat,  # rules 6 and 8
        rematch=None,
        ratings=None,
        today=today,
        told={key: text for key, text in reads.told.items() if key[1] > floor},  # rule 8
    )


def read_after_command(reads: GameReads, game: Game, seat: int, appended) -> GameReads | None:
    """``read_after`` one command of ``seat`` that appended ``appended`` (seq, event):
    what the process that applied it knows without a query (rule 3)."""
    version = appended[-1][0] if appended else game.version
    events = [(seq, dict(event)) for seq, event in appended]
    return read_after(reads, game, [{"seat": seat, "version": version}], events)


def read_since(seating: Seating, reads: GameReads, version: int) -> GameReads | None:
    """``read_after`` the read of ``version``: two queries, for the commands and the
    events since (None: read the whole game, rule 7)."""
    game = seating.game
    if game.status != Game.Status.ACTIVE or not reads.commands:  # rule 7, before querying
        return None
    commands = list(
        Command.objects.filter(game=game, version__gt=version)
        .order_by("-version")
        .values("seat", "version")[: RECENT_COMMANDS + 1]
    )
    events = Event.objects.filter(game=game, seq__gt=version).order_by("seq")
    return read_after(
        reads,
        game,
        commands,
        [
            (seq, {"type": kind, **payload})
            for seq, kind, payload in events.values_list("seq", "kind", "payload")
        ],
    )


@dataclass
class GameRead:
    seating: Seating  # nobody's seat: the frames take the side
    reads: GameReads
    generation: int
    texts: dict = field(default_factory=dict)

    @property
    def version(self) -> int:
        return self.seating.game.version

    def frame(self, kind, keep: bool = True) -> str:
        """The ``state`` frame for seat 0, seat 1 or a watcher in the active language (the
        socket's: the last moves are told in words), encoded once per side and language.

        ``keep``: for the other sockets of the game that will ask for this version (rule
        10)."""
        key = (kind, get_language())
        text = self.texts.get(key)
        if text is None:
            seat = None if kind == WATCHER else kind
            seating = Seating(self.seating.game, self.seating.players, seat)
            game = game_json(seating, self.reads)
            frame = {"type": "state", "version": game["version"], "game": game}
            text = orjson.dumps(frame).decode()
            if keep:  # rule 10
                self.texts[key] = text
        return text


@database_sync_to_async
def _read(game_id: int, kept: GameRead | None) -> tuple[Seating, GameReads]:
    """The game now: what was written since ``kept`` (a read of it), or all of it."""
    seating = access_game(None, game_id)
    reads = None
    if kept is not None and seating.game.version > kept.version:
        reads = read_since(seating, kept.reads, kept.version)  # rule 2
    return seating, reads or read_game(seating)


class Frames:
    """The latest read of each game that has a socket in this process."""

    def __init__(self):
        self.reads: dict[int, GameRead] = {}
        self.building: dict[int, asyncio.Future] = {}
        self.generation: Counter = Counter()
        self.sockets: Counter = Counter()

    def join(self, game_id: int) -> None:
        self.sockets[game_id] += 1  # rule 1

    def leave(self, game_id: int) -> None:
        self.sockets[game_id] -= 1
        if self.sockets[game_id] <= 0:  # rule 1
            for kept in (self.sockets, self.generation, self.reads):
                kept.pop(game_id, None)

    def stale(self, game_id: int) -> None:
        """Something the read holds changed without a new version: the chat (rule 6)."""
        self.generation[game_id] += 1
        self.reads.pop(game_id, None)

    def advance(self, game_id: int, outcome) -> None:
        """Keep the read of the version a command just made (``outcome``: the command's
        ``commands.Outcome``), made from the kept read of the version it was applied to
        (rule 3)."""
        kept = self.reads.get(game_id)
        if (
            kept is None
            or outcome.duplicate
            or kept.version != outcome.previous
            or kept.generation != self.generation[game_id]
        ):
            return
        seating = outcome.seating
        reads = read_after_command(kept.reads, seating.game, seating.seat, outcome.events)
        if reads is not None:  # rule 7: a game that just ended is read by rule 2
            self.reads[game_id] = GameRead(
                Seating(seating.game, seating.players, None), reads, kept.generation
            )

    async def fresh(self, game_id: int) -> GameRead:
        """A read made now, for this caller (kept for the others if it is the newest):
        rule 5."""
        return self._keep(game_id, await self._read(game_id))

    async def at_least(self, game_id: int, version: int) -> GameRead:
        """A read of ``version`` or later: the kept one, or one read for all who wait
        (rule 2)."""
        read = None
        for _ in range(3):  # a read can be overtaken by a newer version or go stale
            read = self.reads.get(game_id)
            if read is not None and read.version >= version:
                return read
            building = self.building.get(game_id)
            if building is None:
                building = asyncio.ensure_future(self._shared_read(game_id))
                self.building[game_id] = building
            read = await asyncio.shield(building)
            if read.version >= version and read.generation == self.generation[game_id]:
                return read
        return read

    async def _shared_read(self, game_id: int) -> GameRead:
        try:
            return self._keep(game_id, await self._read(game_id, since=True))
        finally:
            self.building.pop(game_id, None)

    async def _read(self, game_id: int, since: bool = False) -> GameRead:
        """A read of the game; ``since``: of what changed since the kept read, if it is
        still current (rule 6: no chat line since)."""
        generation = self.generation[game_id]
        kept = self.reads.get(game_id) if since else None
        if kept is not None and kept.generation != generation:  # rule 6
            kept = None
        seating, reads = await _read(game_id, kept)
        return GameRead(seating, reads, generation)

    def _keep(self, game_id: int, read: GameRead) -> GameRead:
        kept = self.reads.get(game_id)
        current = read.generation == self.generation[game_id]  # rule 6
        alive = self.sockets[game_id] > 0  # rule 1
        if alive and current and (kept is None or read.version >= kept.version):  # rule 4
            self.reads[game_id] = read
        return read


FRAMES = Frames()
