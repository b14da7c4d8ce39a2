"""The chat between the two players of a game."""

from __future__ import annotations

from django.db import transaction
from django.utils.translation import gettext_lazy as _

from accounts.guest_accounts import refuse_guest
from accounts.models import Block
from shanghaien.lib.errors import Forbidden
from shanghaien.lib.input import clean_text
from shanghaien.lib.ratelimit import Limit

from ..access import access_game
from ..live import broadcast
from ..models import CHAT_MAX, ChatMessage

CHAT_LIMIT = Limit("chat", 5, 10, _("Slow down: at most 5 messages in 10 seconds."))


def do_chat(game_id, user, text) -> ChatMessage:
    """A line of chat between the two players; stored as typed, escaped when shown."""
    text = clean_text(text, "text", max_length=CHAT_MAX, multiline=True, invalid="bad_message")
    seating = access_game(user, game_id, must_play=True)
    refuse_guest(seating.players[seating.seat], "chat")  # read with the game: as it is now
    if any(player.is_computer for player in seating.players):
        raise Forbidden("bot_game", _("A game against the computer has no chat."))
    if any(player.bot_account for player in seating.players):
        # a program writes nothing anyone answers for (docs/bots.md)
        raise Forbidden("bot_game", _("A game with a bot account has no chat."))
    if Block.between(*seating.players):
        raise Forbidden("blocked", _("Chat is closed between these players."))
    game = seating.game
    CHAT_LIMIT.hit(f"{game.pk}:{user.pk}")
    message = ChatMessage.objects.create(game=game, user=user, text=text)
    transaction.on_commit(lambda: broadcast.chat(game.pk, message.pk))
    return message
