"""The state frames of this process's game sockets: each game version read once.

When a move is broadcast, every socket of the game in this process needs the new state,
each from its own side. The game is read once per version (``access_game`` and
``read_game``: five queries; three for what changed since a kept read), and each
side's frame is encoded once; every socket of the game in the process shares them. A
socket that connects, asks to ``sync`` or hears of a change outside the event log
(``force``) reads afresh; a chat message makes the kept read stale (it holds the chat).

The process whose socket made the move reads nothing: the command's outcome and the read
of the version before it make the read of the new one (``advance``).
"""

from __future__ import annotations

import asyncio
from collections import Counter
from dataclasses import dataclass, field

import orjson
from django.utils.translation import get_language

from shanghaien.lib.sockets import database_sync_to_async

from .access import Seating, access_game
from .serializers import GameReads, game_json, read_after_command, read_game, read_since

WATCHER = "watcher"


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

        ``keep``: for the other sockets of the game that will ask for this version (a
        change's notice reaches them all at once). A read made for one socket (it
        connected or asked to sync) is not asked again: its frame, a few KiB, is not
        kept for as long as the board stays idle."""
        key = (kind, get_language())
        text = self.texts.get(key)
        if text is None:
            seat = None if kind == WATCHER else kind
            seating = Seating(self.seating.game, self.seating.players, seat)
            game = game_json(seating, self.reads)
            frame = {"type": "state", "version": game["version"], "game": game}
            text = orjson.dumps(frame).decode()
            if keep:
                self.texts[key] = text
        return text


@database_sync_to_async
def _read(game_id: int, kept: GameRead | None) -> tuple[Seating, GameReads]:
    """The game now: what was written since ``kept`` (a read of it), or all of it."""
    seating = access_game(None, game_id)
    reads = None
    if kept is not None and seating.game.version > kept.version:
        reads = read_since(seating, kept.reads, kept.version)
    return seating, reads or read_game(seating)


class Frames:
    """The latest read of each game that has a socket in this process."""

    def __init__(self):
        self.reads: dict[int, GameRead] = {}
        self.building: dict[int, asyncio.Future] = {}
        self.generation: Counter = Counter()
        self.sockets: Counter = Counter()

    def join(self, game_id: int) -> None:
        self.sockets[game_id] += 1

    def leave(self, game_id: int) -> None:
        self.sockets[game_id] -= 1
        if self.sockets[game_id] <= 0:
            for kept in (self.sockets, self.generation, self.reads):
                kept.pop(game_id, None)

    def stale(self, game_id: int) -> None:
        """Something the read holds changed without a new version (the chat)."""
        self.generation[game_id] += 1
        self.reads.pop(game_id, None)

    def advance(self, game_id: int, outcome) -> None:
        """Keep the read of the version a command just made (``outcome``: the command's
        ``commands.Outcome``), made from the kept read of the version it was applied to."""
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
        if reads is not None:
            self.reads[game_id] = GameRead(
                Seating(seating.game, seating.players, None), reads, kept.generation
            )

    async def fresh(self, game_id: int) -> GameRead:
        """A read made now, for this caller (kept for the others if it is the newest)."""
        return self._keep(game_id, await self._read(game_id))

    async def at_least(self, game_id: int, version: int) -> GameRead:
        """A read of ``version`` or later: the kept one, or one read for all who wait."""
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
        still current (no chat line since)."""
        generation = self.generation[game_id]
        kept = self.reads.get(game_id) if since else None
        if kept is not None and kept.generation != generation:
            kept = None
        seating, reads = await _read(game_id, kept)
        return GameRead(seating, reads, generation)

    def _keep(self, game_id: int, read: GameRead) -> GameRead:
        kept = self.reads.get(game_id)
        current = read.generation == self.generation[game_id]
        if self.sockets[game_id] > 0 and current and (kept is None or read.version >= kept.version):
            self.reads[game_id] = read
        return read


FRAMES = Frames()
