"""The frames of the game and lobby sockets, declared once (docs/protocol.md).

Every frame a client may send and every frame the server sends is a model here. The
consumers validate what arrives against ``CLIENT_FRAMES`` (unknown fields refused, types
strict); the tests validate what the server sends against ``SERVER_FRAMES``; and the
schemas in docs/protocol.md are written from these models (``manage.py
protocol_schemas --write``; a test fails when they differ). The command inside a
``command`` frame is the same declaration as the HTTP API's (``games.messages.Command``).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, TypeAdapter

from shanghaien.lib.input import CLIENT_ID_PATTERN

from .messages import ChatLine, Command, GameView, Invitation, Message

# --- what a client sends ------------------------------------------------------------------


class CommandFrame(Message):
    """A move: one command for the game at ``expected_version``, once per ``client_id``."""

    type: Literal["command"]
    command: Command
    expected_version: Annotated[int, Field(ge=0)]
    client_id: Annotated[str, Field(pattern=f"^{CLIENT_ID_PATTERN}$")]


class ChatFrame(Message):
    """A line of chat (1–500 characters once trimmed: the service says which is wrong)."""

    type: Literal["chat"]
    text: str


class SyncFrame(Message):
    """Asks for the game's current ``state``."""

    type: Literal["sync"]


class PingFrame(Message):
    """The lobby socket's keep-alive; answered with ``pong``."""

    type: Literal["ping"]


class WatchFrame(Message):
    """The lobby socket: tell me when this ``topic``'s ``id`` changes (a topic an app
    registered, ``games.live.topics``: ``tournament``). At most a few at once, the
    oldest dropped."""

    type: Literal["watch"]
    topic: Annotated[str, Field(pattern="^[a-z_]{1,30}$")]
    id: Annotated[int, Field(ge=1, le=2**63 - 1)]


# --- what the server sends ---------------------------------------------------------------


def _absent_when_none(schema: dict) -> None:
    schema.pop("default", None)


class StateFrame(Message):
    """The game from this socket's side: on connect, after every change, after ``sync``."""

    type: Literal["state"]
    version: Annotated[int, Field(ge=1)]
    game: GameView  # exactly the JSON of GET /api/games/<id>/ for this socket's user


class AckFrame(Message):
    """The command with this ``client_id`` was applied; the game is at ``version``."""

    type: Literal["ack"]
    client_id: str
    version: Annotated[int, Field(ge=1)]


class ErrorFrame(Message):
    """A frame was refused, or a command was not applied; nothing changed."""

    type: Literal["error"]
    code: Annotated[str, Field(pattern="^[a-z_]+$")]
    message: Annotated[str, Field(min_length=1)]
    # absent rather than null when there is none
    client_id: str = Field(default=None, json_schema_extra=_absent_when_none)
    retry_after: float = Field(default=None, gt=0, json_schema_extra=_absent_when_none)


class ChatShownFrame(Message):
    """A new chat message, to every socket of the game."""

    type: Literal["chat"]
    message: ChatLine


class ChatHiddenFrame(Message):
    """A moderator hid the message ``id``: remove it."""

    type: Literal["chat_hidden"]
    id: int


class PresenceFrame(Message):
    """The opponent's board opened or closed: where the opponent is now, as this player
    may know it (``here`` at this game, else ``online``, else ``seen`` with when, else
    ``none``: a player who hides it, never seen), and the words the board shows."""

    type: Literal["presence"]
    state: Literal["here", "online", "seen", "none"]
    text: str


# The ids of the games waiting for the player's move, the one waiting longest first (at
# most games.queries.WAITING_IDS of them): a board tells from it whether its own game is
# among those ``your_turn`` counts.
WaitingIds = Annotated[list[int], Field(max_length=50)]


class HelloFrame(Message):
    """The lobby socket's first frame: how many games wait for this player's move."""

    type: Literal["hello"]
    your_turn: Annotated[int, Field(ge=0)]
    waiting: WaitingIds


class YourTurnFrame(Message):
    """It became this player's turn in ``game``."""

    type: Literal["your_turn"]
    game: int
    your_turn: Annotated[int, Field(ge=1)]
    waiting: WaitingIds


class GamesChangedFrame(Message):
    """One of this player's games changed: the lobby's lists are out of date."""

    type: Literal["games_changed"]
    game: int
    your_turn: Annotated[int, Field(ge=0)]
    waiting: WaitingIds


class InvitationFrame(Message):
    """An invitation to or from this player was made, accepted, declined or cancelled."""

    type: Literal["invitation"]
    event: Literal["received", "accepted", "declined", "cancelled"]
    invitation: Invitation  # as GET /api/invitations/ lists it


class ChangedFrame(Message):
    """A watched ``topic``'s ``id`` changed and is at ``version``: reload what shows it."""

    type: Literal["changed"]
    topic: str
    id: int
    version: Annotated[int, Field(ge=0)]


class WatchingFrame(Message):
    """The answer to ``watch``: this socket now hears of every change of the topic's
    ``id`` (``changed``)."""

    type: Literal["watching"]
    topic: str
    id: int


class PongFrame(Message):
    """The answer to ``ping``."""

    type: Literal["pong"]


# What each socket takes from a client, by ``type``.
GAME_SOCKET = {"command": CommandFrame, "chat": ChatFrame, "sync": SyncFrame}
LOBBY_SOCKET = {"ping": PingFrame, "watch": WatchFrame}

# Every frame, by the name docs/protocol.md gives its schema.
CLIENT_FRAMES: dict[str, type[Message]] = {
    "client.command": CommandFrame,
    "client.chat": ChatFrame,
    "client.sync": SyncFrame,
    "client.ping": PingFrame,
    "client.watch": WatchFrame,
}
SERVER_FRAMES: dict[str, type[Message]] = {
    "server.state": StateFrame,
    "server.ack": AckFrame,
    "server.error": ErrorFrame,
    "server.chat": ChatShownFrame,
    "server.chat_hidden": ChatHiddenFrame,
    "server.presence": PresenceFrame,
    "server.hello": HelloFrame,
    "server.your_turn": YourTurnFrame,
    "server.games_changed": GamesChangedFrame,
    "server.invitation": InvitationFrame,
    "server.pong": PongFrame,
    "server.watching": WatchingFrame,
    "server.changed": ChangedFrame,
}
DECLARED = {**CLIENT_FRAMES, **SERVER_FRAMES}
ADAPTERS = {kind: TypeAdapter(model) for kind, model in {**GAME_SOCKET, **LOBBY_SOCKET}.items()}


def _untitled(schema):
    """``schema`` without pydantic's titles, which only repeat the field names."""
    if isinstance(schema, dict):
        return {
            key: _untitled(value)
            for key, value in schema.items()
            if not (key == "title" and isinstance(value, str))
        }
    if isinstance(schema, list):
        return [_untitled(value) for value in schema]
    return schema


def schemas() -> dict[str, dict]:
    """Each frame's JSON Schema (draft 2020-12), by name."""
    return {name: _untitled(model.model_json_schema()) for name, model in DECLARED.items()}
