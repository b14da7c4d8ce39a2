"""A player's notification choices in tests (games.notify.preferences), by the names of
the kinds' table: ``email_on_turn``, ``daily_digest``…"""

from __future__ import annotations

from games.notify.preferences import choose, chosen

__all__ = ["choose", "choices_of_player"]


def choices_of_player(user, names) -> dict[str, bool]:
    """The player's stored choices ``names``, read again from the database."""
    user.refresh_from_db()
    return {name: chosen(user, name) for name in names}
