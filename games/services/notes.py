"""A player's private note on a game: written by its author only, shown and exported to
its author only (``queries.note_of``; never in the game JSON, a socket frame or the replay)."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from accounts.guest_accounts import refuse_guest
from shanghaien.lib.input import clean_text
from shanghaien.lib.ratelimit import Limit

from ..access import access_game
from ..models import NOTE_MAX, GameNote

NOTE_LIMIT = Limit("note", 30, 60, _("Slow down: at most 30 saves of a note a minute."))


def check_note(text) -> str:
    """The note's text as it is kept: trimmed, at most ``NOTE_MAX`` characters, lines
    allowed; empty deletes the note."""
    return clean_text(text, "text", max_length=NOTE_MAX, required=False, multiline=True)


def do_save_note(game_id, user, text) -> GameNote | None:
    """Keep ``user``'s note on the game (one per player and game), or delete it when the
    text is empty; the note kept, None once deleted. Only the game's two players write
    one, and not a guest (whose games go a day after the last move)."""
    text = check_note(text)
    seating = access_game(user, game_id, must_play=True)
    refuse_guest(seating.me, "note")
    NOTE_LIMIT.hit(str(user.pk))
    with transaction.atomic():
        if not text:
            GameNote.objects.filter(game=seating.game, author=seating.me).delete()
            return None
        note, _created = GameNote.objects.update_or_create(
            game=seating.game,
            author=seating.me,
            defaults={"text": text, "updated_at": timezone.now()},
        )
    return note
