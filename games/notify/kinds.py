"""The kinds of notification: one row each, and nothing else declares a kind.

From this table come the players' preferences (their stored choices and defaults,
``preferences``), the profile's and the admin's boxes, ``preferences.wants``, the
choices of ``Notification.kind``, the unsubscribe link's words and what it turns off,
and the sender's dispatch to the compose functions of ``mail`` and ``push``.

A row names each channel the kind may use (``email``, ``push``) with the player's
choice for it: the form field that shows it (and the key it is stored under), its
label, help text and default. ``compose`` is the name of the function that writes it,
in ``mail`` for an email and in ``push`` for a push notification (by name, so that this
table imports neither: the outbox model reads it for its choices).
"""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

EMAIL, PUSH = "email", "push"
CHANNELS = (EMAIL, PUSH)
KIND_MAX = 12  # characters of Notification.kind


@dataclass(frozen=True)
class Choice:
    """A player's choice of one channel for one kind: on or off."""

    field: str  # the preferences form's field, and the key the choice is stored under
    label: str | Promise
    help: str | Promise = ""
    default: bool = True  # a new player's, and any player's who never chose


@dataclass(frozen=True)
class Kind:
    name: str  # Notification.kind, at most KIND_MAX characters
    label: str | Promise  # its name in the outbox (the admin)
    compose: str  # the function of mail.py / push.py that writes it
    email: Choice | None = None
    push: Choice | None = None
    # Its row in the settings page's table, with a box per channel; None: a box of its own
    # under the table (the digest, which no event starts).
    title: str | Promise | None = None
    # The kinds whose emails it stands in for while the player chooses it: none of
    # those is sent then, and its unsubscribe link turns them off with it.
    replaces: tuple[str, ...] = ()
    # Sent at the player's daily hour (accounts.models.DIGEST_HOUR), not when something
    # happens: choosing it schedules that hour (``User.digest_due_at``).
    daily: bool = False
    # The email's last words, with %(url)s: its unsubscribe link.
    footer: str | Promise = ""
    # The unsubscribe page: what it asks before, and says after.
    question: str | Promise = ""
    unsubscribed: str | Promise = ""

    def choice(self, channel: str) -> Choice | None:
        return self.email if channel == EMAIL else self.push if channel == PUSH else None

    @property
    def channels(self) -> tuple[str, ...]:
        return tuple(channel for channel in CHANNELS if self.choice(channel))


KINDS: tuple[Kind, ...] = (
    Kind(
        "turn",
        _("your turn"),
        compose="turn",
        title=_("Your turn"),
        email=Choice(
            "email_on_turn",
            _("email me when it is my turn"),
            _("At most one email per game and turn."),
        ),
        push=Choice("push_on_turn", _("notify my devices when it is my turn")),
        footer=_("To stop the emails when it is your turn, open:\n%(url)s\n"),
        question=_("Stop the emails that tell you it is your turn?"),
        unsubscribed=_("You will no longer get an email when it is your turn."),
    ),
    Kind(
        "invitation",
        _("invitation received"),
        compose="invitation",
        title=_("An invitation"),
        email=Choice(
            "email_invitations",
            _("email me when I am invited"),
            _("One email per invitation to a game."),
        ),
        push=Choice("push_invitations", _("notify my devices when I am invited")),
        footer=_("To stop the emails about invitations, open:\n%(url)s\n"),
        question=_("Stop the emails that tell you of an invitation to a game?"),
        unsubscribed=_("You will no longer get an email when you are invited to a game."),
    ),
    Kind(
        "reminder",
        _("deadline reminder"),
        compose="reminder",
        title=_("A deadline is near"),
        email=Choice(
            "email_reminders",
            _("deadline reminders"),
            _("One email when a fifth of your time to move is left."),
        ),
        push=Choice("push_reminders", _("notify my devices before a deadline")),
        footer=_("To stop the deadline reminders, open:\n%(url)s\n"),
        question=_("Stop the reminders when a fifth of your time to move is left?"),
        unsubscribed=_("You will no longer get reminders of your deadlines."),
    ),
    Kind(
        "timeout",
        _("game lost or won on time"),
        compose="timeout",
        title=_("A game won or lost on time"),
        email=Choice(
            "email_timeouts",
            _("email me when a game is won or lost on time"),
            _("One email when a game ends because the time to move ran out."),
        ),
        push=Choice("push_timeouts", _("notify my devices when a game is won or lost on time")),
        footer=_("To stop the emails when a game is won or lost on time, open:\n%(url)s\n"),
        question=_("Stop the emails that tell you a game was won or lost on time?"),
        unsubscribed=_("You will no longer get an email when a game is won or lost on time."),
    ),
    Kind(
        "notice",
        _("moderators' notice"),
        compose="notice",
        title=_("A word from the moderators"),
        email=Choice(
            "email_notices",
            _("email me the moderators' notices"),
            _("What became of your report, or what was done about your account and why."),
        ),
        footer=_("To stop the emails of the moderators' notices, open:\n%(url)s\n"),
        question=_(
            "Stop the emails of the moderators' notices? They are still shown on your pages."
        ),
        unsubscribed=_(
            "You will no longer get the moderators' notices by email; they are still shown "
            "on your pages."
        ),
    ),
    Kind(
        "tournament",
        _("tournament news"),
        # written by the tournaments app (``writers``): the key is "<id>:<event>"
        compose="tournament",
        title=_("A tournament starts, a game of yours in it begins, or it ends"),
        email=Choice(
            "email_tournaments",
            _("email me about my tournaments"),
            _(
                "When a tournament you signed up for starts, a new game of yours in it begins, "
                "and when it ends."
            ),
        ),
        push=Choice("push_tournaments", _("notify my devices about my tournaments")),
        footer=_("To stop the emails about your tournaments, open:\n%(url)s\n"),
        question=_("Stop the emails about the tournaments you play in?"),
        unsubscribed=_("You will no longer get an email about your tournaments."),
    ),
    Kind(
        "digest",
        _("daily digest"),
        compose="digest",
        email=Choice(
            "daily_digest",
            _("one email a day instead"),
            _("A daily list of the games waiting for you, instead of one email per turn."),
            default=False,
        ),
        replaces=("turn",),
        daily=True,
        footer=_("To stop the daily digest, open:\n%(url)s\n"),
        question=_(
            "Stop the daily digest of the games waiting for you? No email per turn takes its place."
        ),
        unsubscribed=_("You will no longer get the daily digest, nor an email per turn."),
    ),
)


def get(name: str) -> Kind | None:
    """The row of the kind ``name``; None for a name no row has (any more). (Read from
    the table at each call, a handful of rows, so that nothing holds a copy of it.)"""
    return next((kind for kind in KINDS if kind.name == name), None)


def choices() -> list[tuple[str, str | Promise]]:
    """``Notification.kind``'s choices: every kind, by its outbox name."""
    return [(kind.name, kind.label) for kind in KINDS]


def all_choices() -> list[tuple[Kind, str, Choice]]:
    """(kind, channel, choice) of every choice a player has, in the table's order."""
    return [(kind, channel, kind.choice(channel)) for kind in KINDS for channel in kind.channels]
