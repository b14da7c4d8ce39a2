"""After-commit notices to the channel layer.

Group messages carry only what changed and the new version, never a view: each socket
builds its own viewer's JSON, so secrets never travel through the layer. A failing
layer (Redis down) must not undo a committed move, so errors are logged, not raised.
"""

from __future__ import annotations

import logging

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

log = logging.getLogger(__name__)


def game_group(game_id: int) -> str:
    return f"game.{game_id}"


def user_group(user_id: int) -> str:
    return f"user.{user_id}"


def _send(group: str, message: dict) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(group, message)
    except Exception:  # the move is committed; clients resync on their next message
        log.exception("broadcast to %s failed", group)


def game_changed(
    game_id: int, version: int, force: bool = False, players=None, to_move="unknown"
) -> None:
    """``force``: something outside the event log changed (the clock, a rematch offer).

    ``players`` are the two players' user ids and ``to_move`` the id of the player whose
    turn it is now (None: nobody's), when the caller has them at hand.
    """
    _send(game_group(game_id), {"type": "game.updated", "version": version, "force": force})
    if players is None:
        from .models import Seat

        players = Seat.objects.filter(game_id=game_id).values_list("user_id", flat=True)
    notice = {"type": "lobby.games_changed", "game": game_id}
    if to_move != "unknown":
        notice["to_move"] = to_move
    for user_id in players:
        _send(user_group(user_id), notice)


def invitation_changed(invitation, what: str) -> None:
    """Tell both sides of an invitation; an open one concerns only its sender until taken."""
    message = {"type": "lobby.invitation", "invitation": invitation.pk, "event": what}
    for user_id in {invitation.from_user_id, invitation.to_user_id} - {None}:
        _send(user_group(user_id), message)


def chat(game_id: int, message_id: int) -> None:
    _send(game_group(game_id), {"type": "chat.message", "id": message_id})


def chat_hidden(game_id: int, message_id: int) -> None:
    _send(game_group(game_id), {"type": "chat.hidden", "id": message_id})
