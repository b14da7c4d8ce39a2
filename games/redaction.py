"""What of a game's records may be shown while the game goes on.

The event log holds secrets until the game is over, above all the deck order in
``game_started``: it decides every round still to come, so whoever reads it knows the
next taverns. No one may see them before the end — not the players, not watchers, not
moderators or superusers — so every page that shows events outside the rules engine
shows ``shown_payload`` instead of the raw payload. Once the game is over the whole
log may be read (``history.export`` gives it out then too).
"""

from __future__ import annotations

from django.core.exceptions import FieldDoesNotExist
from django.db.models.constants import LOOKUP_SEP
from django.utils.translation import gettext

# Event kind -> the keys of its payload that stay hidden until the game is over.
SECRET_FIELDS: dict[str, frozenset[str]] = {
    "game_started": frozenset({"deck"}),
}

# Model fields that hold those secrets, by model label: the payloads themselves, the
# snapshot of the state (which holds the rest of the deck), and the seeds they come from.
SECRET_COLUMNS: frozenset[tuple[str, str]] = frozenset(
    {
        ("games.event", "payload"),
        ("games.game", "state"),
        # the server's seed of the dice (rules/fairness.py): it gives every deck and die
        ("games.game", "fair_seed"),
        ("games.invitation", "fair_seed"),
    }
)


def hidden_text() -> str:
    # Translated when shown, not on import, so that each reader gets their language.
    return gettext("hidden until the game is over")


def game_is_over(game) -> bool:
    # Finished, aborted or annulled: the same line history.export draws.
    return game.status != game.Status.ACTIVE


def redacted(kind: str, payload: dict, game_over: bool) -> dict:
    """``payload`` of an event of ``kind`` with its secrets replaced, unless the game is over."""
    if game_over:
        return dict(payload)
    secret = SECRET_FIELDS.get(kind, frozenset())
    return {key: hidden_text() if key in secret else value for key, value in payload.items()}


def shown_payload(event) -> dict:
    """The payload of ``event`` as anyone may see it now."""
    return redacted(event.kind, event.payload, game_is_over(event.game))


def reaches_secrets(model, lookup: str) -> bool:
    """Whether a query lookup such as ``payload__deck__0`` reads a field holding secrets.

    Filtering on one tells which rows match, and so answers questions about the
    secret one at a time, even where the value itself is never shown.
    """
    for part in lookup.split(LOOKUP_SEP):
        try:
            field = model._meta.get_field(part)
        except FieldDoesNotExist:
            return False
        if (field.model._meta.label_lower, field.name) in SECRET_COLUMNS:
            return True
        if not field.is_relation:
            return False  # the remaining parts are transforms of a field without secrets
        model = field.related_model
    return False
