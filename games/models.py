"""Games are stored as an append-only event log.

``Event`` rows are the truth; ``Game.state`` is a snapshot that always equals the fold
of its events, and the other ``Game`` fields are copies of it kept for queries (whose
turn, round, result). Only ``games.services`` writes any of them.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.functional import lazy
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext, pgettext_lazy

from shanghaien.lib.db import AppendOnlyModel

from . import rules
from .rules import fairness


def _days(n: int) -> str:
    return ngettext("%(n)d day", "%(n)d days", n) % {"n": n}


# Lazy: each label is translated when shown, in the language of the request.
DAYS_PER_MOVE_CHOICES = [(d, lazy(_days, str)(d)) for d in (1, 2, 3, 5, 7, 14)]


class Game(models.Model):
    class Status(models.TextChoices):
        ACTIVE = "active", _("Active")
        FINISHED = "finished", _("Finished")
        ABORTED = "aborted", _("Aborted")
        ANNULLED = "annulled", _("Annulled")

    status = models.CharField(max_length=10, choices=Status.choices, default=Status.ACTIVE)
    extra_wild = models.BooleanField(_("extra wild card variant"), default=False)
    days_per_move = models.PositiveSmallIntegerField(choices=DAYS_PER_MOVE_CHOICES, default=3)
    rated = models.BooleanField(default=True, help_text=_("the result changes both ratings"))
    version = models.PositiveIntegerField(default=0, help_text=_("seq of the last event"))
    state = models.JSONField(help_text=_("snapshot: the fold of the event log (holds secrets)"))
    round = models.PositiveSmallIntegerField(default=1)
    to_move = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        help_text=_("the player whose turn it is"),
    )
    winner = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    result_reason = models.CharField(max_length=20, blank=True)
    score0 = models.SmallIntegerField(null=True, blank=True)
    score1 = models.SmallIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    last_move_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # The clock of the player to move: a new turn starts whenever to_move changes.
    turn_number = models.PositiveIntegerField(default=0)
    turn_started_at = models.DateTimeField(null=True, blank=True)
    deadline = models.DateTimeField(
        null=True, blank=True, help_text=_("before holidays of the player to move are added")
    )
    extended = models.BooleanField(default=False, help_text=_("an extra day was granted this turn"))
    # When the worker must next look at this game (games.clock.next_due): the reminder
    # moment, then the deadline, holidays and the extra day folded in; never later than
    # that, so the deadline job reads only the due games, on an index. None: no clock
    # runs (a computer opponent to move, or the game is over).
    due_at = models.DateTimeField(null=True, blank=True, editable=False)
    # Provably fair randomness (games/rules/fairness.py, docs/fairness.md): the server's
    # seed, secret until the game is over, its published SHA-256, both players' seeds
    # (seat 0's first), and how many words of the stream the game has taken. A game from
    # before the scheme has no seed and draws from the system's randomness.
    fair_seed = models.CharField(max_length=64, blank=True, default="", db_default="")
    fair_commitment = models.CharField(max_length=64, blank=True, default="", db_default="")
    client_seeds = models.JSONField(default=list, blank=True)
    fair_position = models.PositiveIntegerField(default=0, db_default=0)
    fair_scheme = models.CharField(
        max_length=20, blank=True, default=fairness.SCHEME, db_default=fairness.SCHEME_V1
    )
    # On the page of live games now (games.queries.live_page): a game under way between
    # two people who signed up; a guest's game (accounts.guest_accounts) is watched only
    # by its link. Set as the game starts, cleared as it ends (game_log.store_state), so
    # that the page reads this one column, whose statistics the planner gets right. Not
    # listed unless the code that starts the game says so (also a game the previous
    # release starts during an upgrade).
    listed = models.BooleanField(default=False, db_default=False)
    # A time bank instead of a fixed time for every move (games.clock.Bank): each player
    # starts with ``bank_start_hours``, each of their turns adds ``bank_increment_hours``
    # when it ends, never above ``bank_cap_hours``; the time of a turn is spent from the
    # mover's bank (holidays stop it). None: ``days_per_move`` is the time of each move.
    bank_start_hours = models.PositiveSmallIntegerField(null=True, blank=True)
    bank_increment_hours = models.PositiveSmallIntegerField(default=0, db_default=0)
    bank_cap_hours = models.PositiveSmallIntegerField(null=True, blank=True)
    # Each seat's bank in whole seconds as its last turn ended ([seat 0, seat 1]); the
    # mover's is what their turn began with (its deadline is turn_started_at + it).
    # None in a game without a bank.
    banks = models.JSONField(null=True, blank=True)

    class Meta:
        ordering = ["-last_move_at", "-id"]
        indexes = [
            models.Index(fields=["status", "to_move"]),
            models.Index(fields=["status", "deadline"]),
            models.Index(
                fields=["due_at"],
                condition=models.Q(status="active", due_at__isnull=False),
                name="game_due_idx",
            ),
            # the games waiting for a player, the turn that began first first (the header's
            # count and its "next game", games.queries.waiting): only the active games
            models.Index(
                fields=["to_move", "turn_started_at", "id"],
                condition=models.Q(status="active"),
                name="game_waiting_idx",
            ),
            # the live games, the newest move first, a page after a (last_move_at, id) cursor
            models.Index(
                fields=["-last_move_at", "-id"],
                condition=models.Q(listed=True),
                name="game_live_idx",
            ),
        ]
        permissions = [
            ("annul_game", "Can annul a game (no result)"),
            ("adjudicate_game", "Can award a game to one player"),
        ]

    def __str__(self):
        return f"Game {self.pk}"

    def rules_state(self) -> rules.GameState:
        """The snapshot as the engine's state, parsed once for each snapshot assigned."""
        kept = self.__dict__.get("_rules_state")
        if kept is None or kept[0] is not self.state:
            kept = (self.state, rules.state_from_json(self.state))
            self.__dict__["_rules_state"] = kept
        return kept[1]


class Seat(models.Model):
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="seats")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="seats"
    )
    seat = models.PositiveSmallIntegerField(choices=[(0, "0"), (1, "1")])
    # Game sockets this player has open now: while the game is open, "your turn" emails
    # are not needed. A socket of a server that died never closes, so the count only
    # holds while an open socket renews socket_seen_at (services.SOCKET_LEASE).
    open_sockets = models.SmallIntegerField(default=0)
    socket_seen_at = models.DateTimeField(
        null=True, blank=True, help_text=_("when an open game socket last said it was alive")
    )
    # The game's finished_at, copied when it ends (finished, aborted or annulled); empty
    # while it goes on. A player's lists read their page from the two indexes below
    # instead of every game they ever played.
    ended_at = models.DateTimeField(null=True, blank=True)
    # Copied with ended_at (games.services.player_records), so that a player's list of
    # games that are over is filtered on the seats' own indexes: who the opponent was,
    # the result from this seat ("won", "lost", "drawn"; "" for an aborted or annulled
    # game), the variant and whether the game was rated. Empty while the game goes on;
    # outcome None on an ended seat: the previous release ended it, and the worker's
    # catch-up fills it (games.services.upgrades). The opponent is a plain column with
    # no constraint: the one writer copies it from the game's other seat.
    opponent = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.DO_NOTHING,
        db_constraint=False,
        db_index=False,
        related_name="+",
    )
    outcome = models.CharField(max_length=5, null=True, blank=True)  # noqa: DJ001 (None: unfilled)
    extra_wild = models.BooleanField(null=True, blank=True)
    rated = models.BooleanField(null=True, blank=True)

    class Meta:
        ordering = ["game", "seat"]
        constraints = [
            models.UniqueConstraint(fields=["game", "seat"], name="one_player_per_seat"),
            models.UniqueConstraint(fields=["game", "user"], name="one_seat_per_player"),
        ]
        indexes = [
            # the list of games that are over, the last to end first, a page after a
            # (ended_at, game) cursor; the filters' columns last, checked in the index
            models.Index(
                fields=["user", "-ended_at", "-game", "outcome", "rated", "extra_wild"],
                name="seat_ended_list_idx",
                condition=models.Q(ended_at__isnull=False),
            ),
            # the same against one opponent
            models.Index(
                fields=["user", "opponent", "-ended_at", "-game", "outcome", "rated", "extra_wild"],
                name="seat_opponent_idx",
                condition=models.Q(ended_at__isnull=False),
            ),
            # ended seats the previous release left unfilled: none once the worker has run
            models.Index(
                fields=["game"],
                name="seat_unfilled_idx",
                condition=models.Q(ended_at__isnull=False, outcome__isnull=True),
            ),
            # the lobby: the games a player has under way
            models.Index(
                fields=["user"], name="seat_active_idx", condition=models.Q(ended_at__isnull=True)
            ),
        ]

    def __str__(self):
        return f"{self.user} in game {self.game_id} (seat {self.seat})"


class PlayerRecord(models.Model):
    """A player's finished games (with a result: aborted and annulled ones do not count),
    counted when each ends (``games.services.player_records``), so that a profile reads one row."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        primary_key=True,
        on_delete=models.CASCADE,
        related_name="game_record",
    )
    played = models.PositiveIntegerField(default=0, db_default=0)
    won = models.PositiveIntegerField(default=0, db_default=0)
    lost = models.PositiveIntegerField(default=0, db_default=0)
    drawn = models.PositiveIntegerField(default=0, db_default=0)
    # The player's pace (``player_records``): the time their turns took in their last
    # finished games, a [seconds, turns] pair per game (at most ``PACE_GAMES``, the newest
    # last), and its average in seconds per move; empty before the first finished game.
    recent_turns = models.JSONField(null=True, blank=True)
    pace = models.FloatField(null=True, blank=True, help_text=_("seconds per move, on average"))

    def __str__(self):
        return f"{self.user_id}: {self.won}-{self.drawn}-{self.lost}"


class Tally(models.Model):
    """Finished games (with a result) counted as each ends, by what the subclass keys
    them on (``games.services.player_records``): a profile reads a few rows, never the
    games."""

    played = models.PositiveIntegerField(default=0, db_default=0)
    won = models.PositiveIntegerField(default=0, db_default=0)
    lost = models.PositiveIntegerField(default=0, db_default=0)
    drawn = models.PositiveIntegerField(default=0, db_default=0)

    class Meta:
        abstract = True


class OpponentRecord(Tally):
    """A player's finished games against one opponent."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    opponent = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "opponent"], name="opponent_record_unique")
        ]
        # a profile's most played opponents
        indexes = [models.Index(fields=["user", "-played", "opponent"], name="opponent_played_idx")]

    def __str__(self):
        return f"{self.user_id} v {self.opponent_id}: {self.won}-{self.drawn}-{self.lost}"


class VariantRecord(Tally):
    """A player's finished games of one variant (with the extra wild card, or without)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    extra_wild = models.BooleanField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "extra_wild"], name="variant_record_unique")
        ]

    def __str__(self):
        return f"{self.user_id} wild={self.extra_wild}: {self.won}-{self.drawn}-{self.lost}"


class MonthRecord(Tally):
    """A player's finished games that ended in one month (UTC; ``month`` is its first day)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    month = models.DateField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "month"], name="month_record_unique")
        ]

    def __str__(self):
        return f"{self.user_id} {self.month:%Y-%m}: {self.won}-{self.drawn}-{self.lost}"


class Event(AppendOnlyModel):
    """One fact of a game. Rows are only ever added."""

    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="events")
    seq = models.PositiveIntegerField()
    kind = models.CharField(max_length=30)
    payload = models.JSONField()
    seat = models.PositiveSmallIntegerField(null=True, blank=True, help_text=_("who caused it"))
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["game", "seq"]
        constraints = [models.UniqueConstraint(fields=["game", "seq"], name="event_seq_unique")]

    def __str__(self):
        return f"#{self.seq} {self.kind}"

    def as_rules_event(self) -> dict:
        return {"type": self.kind, **self.payload}


class Command(models.Model):
    """A command applied to a game, by its client id: a retry returns this, applies nothing."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="commands")
    seat = models.PositiveSmallIntegerField()
    client_id = models.CharField(max_length=64)
    command = models.JSONField()
    version = models.PositiveIntegerField(help_text=_("the game's version after the command"))
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["game", "client_id"], name="command_client_id_unique")
        ]

    def __str__(self):
        return f"{self.client_id} → v{self.version}"


class Invitation(models.Model):
    class Status(models.TextChoices):
        OPEN = "open", pgettext_lazy("invitation", "Open")
        ACCEPTED = "accepted", _("Accepted")
        DECLINED = "declined", _("Declined")
        CANCELLED = "cancelled", _("Cancelled")

    from_user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="invitations_sent"
    )
    to_user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="invitations_received",
        help_text=_("empty: an open invitation anyone may accept"),
    )
    extra_wild = models.BooleanField(_("extra wild card variant"), default=False)
    days_per_move = models.PositiveSmallIntegerField(choices=DAYS_PER_MOVE_CHOICES, default=3)
    rated = models.BooleanField(default=True, help_text=_("a rated game, or a casual one"))
    message = models.CharField(max_length=300, blank=True)
    # Who may accept an open invitation (games.services.fitting): a rating range (as the
    # site shows ratings) and a pace (days a move, on average); empty: no limit.
    # A time bank instead of days per move, as on Game (None: days_per_move)
    bank_start_hours = models.PositiveSmallIntegerField(null=True, blank=True)
    bank_increment_hours = models.PositiveSmallIntegerField(default=0, db_default=0)
    bank_cap_hours = models.PositiveSmallIntegerField(null=True, blank=True)
    min_rating = models.PositiveSmallIntegerField(null=True, blank=True)
    max_rating = models.PositiveSmallIntegerField(null=True, blank=True)
    max_pace = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text=_("days per move at most, on average")
    )
    # The server's seed for the game (secret until the game is over), its SHA-256 (shown
    # with the invitation) and the inviter's seed: games/rules/fairness.py.
    fair_seed = models.CharField(max_length=64, blank=True, default="", db_default="")
    fair_commitment = models.CharField(max_length=64, blank=True, default="", db_default="")
    fair_scheme = models.CharField(
        max_length=20, blank=True, default=fairness.SCHEME, db_default=fairness.SCHEME_V1
    )
    client_seed = models.CharField(max_length=64, blank=True, default="", db_default="")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    game = models.OneToOneField(
        Game, null=True, blank=True, on_delete=models.SET_NULL, related_name="invitation"
    )
    rematch_of = models.ForeignKey(
        Game, null=True, blank=True, on_delete=models.SET_NULL, related_name="rematches"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    answered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [
            models.Index(fields=["status", "to_user"]),
            # the lobby's open invitations, newest first, a bounded page of them
            models.Index(
                fields=["-created_at"],
                condition=models.Q(status="open", to_user__isnull=True),
                name="invitation_open_idx",
            ),
        ]

    def __str__(self):
        to = self.to_user or "anyone"
        return f"{self.from_user} invites {to} ({self.status})"


class PendingSeed(models.Model):
    """A player's next server seed, made before the player sends a seed of their own.

    Its commitment is shown to the player (the lobby, the invitation forms, the board's
    rematch button, ``GET /api/commitment/``); the next invitation or rematch the player
    sends takes the seed, and a new one is made in its place. So the server's seed of
    every game is fixed before the seed it is mixed with arrives (docs/fairness.md).
    """

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="pending_seed",
    )
    seed = models.CharField(max_length=64)
    commitment = models.CharField(max_length=64)
    made_at = models.DateTimeField()

    def __str__(self):
        return f"{self.user}: {self.commitment[:12]}"


class WorkerHeartbeat(models.Model):
    """The last sign of life of each worker (by name: its host's, unless given), so that
    any web process can tell whether emails and timeouts are handled
    (``games.jobs.worker_heartbeat_age``)."""

    name = models.CharField(max_length=100, primary_key=True)
    beat_at = models.DateTimeField()
    host = models.CharField(max_length=255, blank=True)
    pid = models.PositiveIntegerField(null=True, blank=True)

    def __str__(self):
        return f"{self.name} at {self.beat_at:%Y-%m-%d %H:%M:%S}"


CHAT_MAX = 500


class ChatMessage(models.Model):
    """A line of the chat between the two players of a game."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="chat")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="chat_messages"
    )
    text = models.CharField(max_length=CHAT_MAX)
    created_at = models.DateTimeField(auto_now_add=True)
    hidden = models.BooleanField(default=False)

    class Meta:
        ordering = ["game", "created_at", "id"]
        indexes = [models.Index(fields=["user", "created_at"])]
        permissions = [("hide_chatmessage", "Can hide a chat message")]

    def __str__(self):
        return f"{self.user}: {self.text[:40]}"


NOTE_MAX = 2000


class GameNote(models.Model):
    """A player's private note on a game: one per player and game, shown and exported
    to its author only (``services.notes``, ``queries.note_of``)."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="+")
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    text = models.TextField(max_length=NOTE_MAX)
    updated_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["game", "author"], name="one_note_per_author")
        ]

    def __str__(self):
        return f"note of {self.author_id} on game {self.game_id}"


def analysis_engine() -> str:
    """The level whose judgement a new analysis gives (``games.bots.hindsight.ENGINE``)."""
    from .bots import hindsight

    return hindsight.ENGINE


class GameAnalysis(models.Model):
    """A computer opponent's look back at a finished game (``games.bots.hindsight``),
    worked out by the worker in short chunks after the game ended (``services.analysis``).
    ``engine`` names the level whose judgement it holds: one engine a row, never two."""

    class Status(models.TextChoices):
        PENDING = "pending", _("being prepared")
        READY = "ready", _("ready")
        FAILED = "failed", _("failed")

    game = models.OneToOneField(
        Game, on_delete=models.CASCADE, primary_key=True, related_name="analysis"
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    done = models.PositiveIntegerField(default=0)  # decisions weighed so far (the next one)
    total = models.PositiveIntegerField(default=0)  # the players' decisions in the game
    decisions = models.JSONField(default=list)  # the analysed ones: each with a choice
    attempts = models.PositiveSmallIntegerField(default=0)  # chunks that failed
    error = models.CharField(max_length=200, blank=True)  # the last failure
    seconds = models.FloatField(default=0.0)  # the work it took
    # The level whose judgement it holds (a games.bots level); the rows from before this
    # field are the captain's.
    engine = models.CharField(max_length=20, default=analysis_engine, db_default="captain")
    created_at = models.DateTimeField(auto_now_add=True)
    computed_at = models.DateTimeField(null=True, blank=True)
    # When the analysis joins the queue (always set): the game's end, or a later hour when
    # its players have had their analyses of the hour (services.limits.analysis_begins).
    # The queue of pending analyses is read newest first on an index of its own rows,
    # without reading the games.
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name_plural = "game analyses"
        indexes = [
            models.Index(fields=["status"]),
            models.Index(
                fields=["-finished_at", "-game"],
                condition=models.Q(status="pending"),
                name="analysis_queue_idx",
            ),
        ]

    def __str__(self):
        return f"Analysis of game {self.game_id} ({self.status})"


# The outbox of notifications is the notify slice's (games/notify/models.py); imported
# here so that Django finds its model among the games app's.
from .notify.models import Notification, NotificationPreferences  # noqa: E402, F401
