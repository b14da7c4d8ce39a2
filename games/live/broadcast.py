"""After-commit notices to the channel layer.

Group messages carry only what changed and the new version, never a view: each socket
builds its own viewer's JSON, so secrets never travel through the layer. A failing
layer (Redis down) must not undo a committed move, so errors are logged, not raised.

A change's notices go out together. From a request's thread they are sent on the event
loop while the thread waits (``async_to_sync``); a socket that calls a service on a
database thread holds them instead (``holding``) and publishes them from the loop
itself, so that no database thread waits for the loop.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import threading

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

log = logging.getLogger(__name__)

_local = threading.local()  # .held: the notices of the running ``holding`` call


def game_group(game_id: int) -> str:
    return f"game.{game_id}"


def user_group(user_id: int) -> str:
    return f"user.{user_id}"


def _send(*notices: tuple[str, dict]) -> None:
    """Send (group, message) pairs, or hold them for the ``holding`` call running."""
    held = getattr(_local, "held", None)
    if held is not None:
        held.extend(notices)
        return
    layer = get_channel_layer()
    if layer is None or not notices:
        return
    try:
        async_to_sync(_publish)(layer, notices)
    except Exception:  # the move is committed; clients resync on their next message
        log.exception("broadcast failed")


async def _publish(layer, notices) -> None:
    sent = [layer.group_send(group, message) for group, message in notices]
    results = await asyncio.gather(*sent, return_exceptions=True)
    for (group, _message), result in zip(notices, results, strict=True):
        if isinstance(result, Exception):
            log.error("broadcast to %s failed", group, exc_info=result)


async def publish(notices) -> None:
    """Send the notices a ``holding`` call returned, from the event loop."""
    layer = get_channel_layer()
    if layer is not None and notices:
        await _publish(layer, notices)


def holding(func):
    """``func`` with the notices of what it commits held back: it returns
    ``(result, notices)``, and the caller, on the event loop, sends them (``publish``).

    If ``func`` raises, whatever it committed before is announced all the same, here.
    """

    @functools.wraps(func)
    def run(*args, **kwargs):
        _local.held = held = []
        try:
            result = func(*args, **kwargs)
        except BaseException:
            _local.held = None
            _send(*held)
            raise
        finally:
            _local.held = None
        return result, held

    return run


def game_changed(
    game_id: int, version: int, force: bool = False, players=None, to_move="unknown"
) -> None:
    """``force``: something outside the event log changed (the clock, a rematch offer).

    ``players`` are the two players' user ids and ``to_move`` the id of the player whose
    turn it is now (None: nobody's), when the caller has them at hand.
    """
    notices = [(game_group(game_id), {"type": "game.updated", "version": version, "force": force})]
    if players is None:
        from ..models import Seat

        players = Seat.objects.filter(game_id=game_id).values_list("user_id", flat=True)
    notice = {"type": "lobby.games_changed", "game": game_id}
    if to_move != "unknown":
        notice["to_move"] = to_move
    notices += [(user_group(user_id), notice) for user_id in players]
    _send(*notices)


def games_started(told: dict[int, tuple[int, int]]) -> None:
    """New games began (``games.services.starting``): each player's lobby hears once,
    naming one of their new games (``told``: player id → (game id, version)), however
    many started; the lobby reads the rest as it does after any change."""
    notices = [
        (user_group(user_id), {"type": "lobby.games_changed", "game": game_id})
        for user_id, (game_id, _version) in told.items()
    ]
    _send(*notices)


def invitation_changed(invitation, what: str) -> None:
    """Tell both sides of an invitation; an open one concerns only its sender until taken."""
    message = {"type": "lobby.invitation", "invitation": invitation.pk, "event": what}
    users = {invitation.from_user_id, invitation.to_user_id} - {None}
    _send(*((user_group(user_id), message) for user_id in users))


def chat(game_id: int, message_id: int) -> None:
    _send((game_group(game_id), {"type": "chat.message", "id": message_id}))


def chat_hidden(game_id: int, message_id: int) -> None:
    _send((game_group(game_id), {"type": "chat.hidden", "id": message_id}))


def topic_group(name: str, pk: int) -> str:
    """The group of the lobby sockets watching a registered topic (``topics``)."""
    return f"topic.{name}.{pk}"


def topic_changed(name: str, pk: int, version: int) -> None:
    """Every lobby socket watching (``name``, ``pk``) hears that it is at ``version``."""
    message = {"type": "topic.changed", "topic": name, "id": pk, "version": version}
    _send((topic_group(name, pk), message))
