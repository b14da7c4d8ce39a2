"""What a refused request must leave as it was, and games to play while fuzzing."""

from __future__ import annotations

import uuid

from accounts.models import ApiToken, Block, Follow, Holiday, Notice, PushSubscription, User
from games.models import (
    ChatMessage,
    Command,
    Event,
    Game,
    GameNote,
    Invitation,
    Notification,
    Seat,
)
from games.services import commands, invitations
from moderation.models import AuditEntry, Report
from ratings.models import PlayerRating, RatingChange
from tournaments.models import Entry, Match, Tournament

# Well-formed commands of every shape, legal now or not: they reach the rules engine.
PLAUSIBLE = [
    {"type": "roll"},
    {"type": "direction", "one_at": "left"},
    {"type": "place", "die": 0},
    {"type": "place", "die": 1},
    {"type": "shanghai"},
    {"type": "trick", "card": "T1", "half": "adjust", "die": 0, "delta": 1},
    {"type": "trick", "card": "T3", "half": "wild", "nation": "spanish"},
    {"type": "trick", "card": "T4", "half": "both"},
    {"type": "trick", "card": "T7", "half": "reroll"},
    {"type": "trick", "card": "T99", "half": "sideways"},
]

TABLES = {
    # The state only changes with the version (and the fixture event_log_equals_snapshot
    # checks it against the log after each test); events are never updated, only added.
    "games": (
        Game,
        ("version", "status", "deadline", "extended", "to_move_id", "winner_id", "banks"),
    ),
    "seats": (Seat, ("game_id", "user_id", "seat")),
    "events": (Event, ("game_id", "seq", "kind")),
    "commands": (Command, ("game_id", "seat", "client_id", "command", "version")),
    "chat": (ChatMessage, ("game_id", "user_id", "text", "hidden")),
    "notes": (GameNote, ("game_id", "author_id", "text")),
    "invitations": (
        Invitation,
        (
            "from_user_id",
            "to_user_id",
            "status",
            "game_id",
            "message",
            "days_per_move",
            "extra_wild",
            "rated",
            "rematch_of_id",
            "min_rating",
            "max_rating",
            "max_pace",
            "bank_start_hours",
            "bank_increment_hours",
            "bank_cap_hours",
        ),
    ),
    "reports": (Report, ("reporter_id", "game_id", "message_id", "reason", "status")),
    "audit": (AuditEntry, ("moderator_id", "action", "target_id", "reason")),
    "notices": (Notice, ("user_id", "subject", "dismissed_at")),
    "blocks": (Block, ("user_id", "blocked_id")),
    "follows": (Follow, ("follower_id", "followed_id")),
    "holidays": (Holiday, ("user_id", "start", "end")),
    "push_devices": (PushSubscription, ("user_id", "endpoint", "p256dh", "auth", "vapid_key")),
    # not last_used_at: authenticating by a token notes when, refused or not
    "tokens": (ApiToken, ("user_id", "name", "digest")),
    "users": (
        User,
        (
            "username",
            "email",
            "notification_choices",
            "language",
            "time_zone",
            "suspended_until",
            "is_active",
            "bot_account",
        ),
    ),
    "notifications": (Notification, ("user_id", "kind", "key", "channel", "subscription_id")),
    "ratings": (PlayerRating, ("user_id", "rating", "games")),
    "rating_changes": (RatingChange, ("rating_after",)),
    "tournaments": (
        Tournament,
        ("name", "status", "format", "created_by_id", "stage", "winner_id", "version"),
    ),
    "entries": (Entry, ("tournament_id", "user_id", "status", "match_points", "group")),
    "matches": (Match, ("tournament_id", "stage", "slot", "status", "winner_id")),
}


def snapshot() -> dict[str, list]:
    return {
        name: list(model.objects.order_by("pk").values_list("pk", *fields))
        for name, (model, fields) in TABLES.items()
    }


def changes(before: dict, after: dict) -> str:
    """The tables that differ, with the first rows that do."""
    lines = []
    for name in before:
        if before[name] != after[name]:
            old, new = set(before[name]), set(after[name])
            lines.append(
                f"{name}: gone {sorted(old - new)[:3]!r:.300}, new {sorted(new - old)[:3]!r:.300}"
            )
    return "; ".join(lines)


def only_added(before: dict, after: dict, table: str) -> bool:
    """Whether the one difference is new rows in ``table``."""
    differ = [name for name in before if before[name] != after[name]]
    return differ == [table] and set(before[table]) < set(after[table])


def new_game(inviter, invited) -> Game:
    """A fresh game, started past the invitation rate limits (the fuzzing spends them)."""
    invitation = Invitation.objects.create(from_user=inviter, to_user=invited)
    return invitations.do_accept_invitation(invitation.pk, invited)


def finished_game(inviter, invited) -> Game:
    game = new_game(inviter, invited)
    mover = game.to_move
    commands.do_command(game.pk, mover, {"type": "resign"}, game.version, str(uuid.uuid4()))
    game.refresh_from_db()
    return game
