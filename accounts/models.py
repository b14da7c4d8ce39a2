import hashlib
import secrets
import zoneinfo
from datetime import UTC, datetime, time, timedelta
from functools import cache

from django.conf import settings
from django.contrib.auth.models import AbstractUser, UserManager
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models.functions import Lower, Upper
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext


class CaseInsensitiveUserManager(UserManager):
    def get_by_natural_key(self, username):
        # "Anna" logs in as the user "anna": names differ in more than case only.
        return self.get(username__iexact=username)


SUSPENDED_FOR_GOOD = datetime(9999, 1, 1, tzinfo=UTC)  # ``suspended_until`` of "for good"

# The daily digest goes out at this hour of the player's own time zone: before a working
# day, so the day's moves can be planned over breakfast, wherever the player lives.
DIGEST_HOUR = time(7, 0)


def next_digest_at(zone: zoneinfo.ZoneInfo, now: datetime) -> datetime:
    """The first ``DIGEST_HOUR`` of ``zone`` after ``now`` (in UTC).

    On a day the clocks go forward past that hour, the wall-clock time read in the zone
    is the instant after the gap (zoneinfo's ``fold`` rules), still once that day.
    """
    local = now.astimezone(zone)
    moment = datetime.combine(local.date(), DIGEST_HOUR, tzinfo=zone)
    if moment.astimezone(UTC) <= now:
        moment = datetime.combine(local.date() + timedelta(days=1), DIGEST_HOUR, tzinfo=zone)
    return moment.astimezone(UTC)


@cache
def time_zones() -> frozenset[str]:
    """The IANA zone names this machine knows (the tzdata package where the OS has none)."""
    return frozenset(zoneinfo.available_timezones())


def validate_time_zone(name: str) -> None:
    if name not in time_zones():
        raise ValidationError(_("Not a time zone: choose one from the list."), code="time_zone")


# The computer opponents' levels, weakest first (games.bots.LEVELS, which a test holds
# to this list), and their accounts' names.
BOT_LEVELS = [
    ("deckhand", _("Deckhand")),
    ("boatswain", _("Boatswain")),
    ("captain", _("Captain")),
    ("admiral", _("Admiral")),
]


# The mark of a bot account (``User.program_mark``), beside the computer opponents' levels.
BOT_ACCOUNT_MARK = "bot"


def bot_mark(level: str) -> str:
    """The words beside a program's name wherever it shows, in the active language:
    "computer · Captain" for a computer opponent's level, "bot" for a bot account
    (``BOT_ACCOUNT_MARK``)."""
    if level == BOT_ACCOUNT_MARK:
        return pgettext("a tag beside a bot account's name", "bot")
    return pgettext("a tag beside a computer opponent's name", "computer · %(level)s") % {
        "level": dict(BOT_LEVELS)[level]
    }


class User(AbstractUser):
    """A player or an admin."""

    # What the player chose to be told of, and how (by email, on their devices): the
    # notify slice's data (games.notify.preferences reads and writes it, from its table
    # of kinds); this app keeps it and reads nothing in it. {} is every default.
    notification_choices = models.JSONField(default=dict, db_default={}, blank=True, editable=False)
    # How many rows of push_subscriptions the player has (accounts.devices keeps it): a move
    # that starts the turn of a player without a device then queries nothing for pushes.
    push_devices = models.PositiveSmallIntegerField(default=0, editable=False)

    suspended_until = models.DateTimeField(
        _("suspended until"),
        null=True,
        blank=True,
        help_text=_("suspended until then (far future: for good)"),
    )

    language = models.CharField(
        _("language"),
        max_length=8,
        choices=settings.LANGUAGES,
        blank=True,
        help_text=_("Pages and emails in this language; empty: the browser's."),
    )
    time_zone = models.CharField(
        _("time zone"),
        max_length=64,
        default="UTC",
        validators=[validate_time_zone],
        help_text=_("Deadlines, holidays and emails in this zone's time."),
    )

    suspension_reason = models.TextField(
        _("reason for the suspension"),
        blank=True,
        help_text=_("shown to the player when they try to log in"),
    )

    # A computer opponent's account (games.bots, one per level): never logs in, never
    # times out, takes no holidays and does not chat; "" for every person.
    bot_level = models.CharField(
        _("computer opponent"),
        max_length=16,
        choices=BOT_LEVELS,
        blank=True,
        default="",
        editable=False,
    )

    # A bot account: a person's program that plays through the API (docs/bots.md, "Bring
    # your own bot"). Set once, through the API, on an account that has played no game.
    bot_account = models.BooleanField(
        _("bot account"), default=False, db_default=False, editable=False
    )

    # When the worker next looks at this player's digest (``next_digest_at``): set while
    # the digest is chosen (``schedule_digest``, games.notify.preferences), kept in step
    # with the time zone by ``save`` and moved on by the worker (games.notify.queue).
    digest_due_at = models.DateTimeField(null=True, blank=True, editable=False)

    # A guest's account (accounts.guest_accounts): made for a visitor who plays the
    # computer without signing up, and deleted with its games at this moment
    # (games.services.guest_expiry), which each game and move of theirs puts off. None for
    # every account signed up (a guest who signs up keeps the same row, this cleared).
    guest_until = models.DateTimeField(
        _("guest until"),
        null=True,
        blank=True,
        editable=False,
        help_text=_("a guest's account, deleted at this moment unless used again"),
    )

    # When the player was last on the site (accounts.online: a socket opening or closing,
    # every renewal beat of their open sockets, a log-in); None before the first time.
    last_seen_at = models.DateTimeField(_("last seen"), null=True, blank=True, editable=False)
    # Whether others see the player online now or when last seen (they always see it
    # themselves).
    show_presence = models.BooleanField(
        _("show when I am online"),
        default=True,
        db_default=True,
        help_text=_("Others see whether you are online now, and when you were last seen."),
    )

    objects = CaseInsensitiveUserManager()

    class Meta(AbstractUser.Meta):
        constraints = [
            models.UniqueConstraint(Lower("username"), name="username_unique_ignoring_case"),
            # One account an address, whatever its case; accounts without one may be many.
            models.UniqueConstraint(
                Lower("email"),
                condition=~models.Q(email=""),
                name="email_unique_ignoring_case",
            ),
        ]
        permissions = [("suspend_user", "Can suspend a user and lift a suspension")]
        # The computer opponents' few accounts, found without reading every player's
        # (the worker's bots, and games.backlog at each scrape).
        indexes = [
            models.Index(
                fields=["bot_level"], condition=models.Q(bot_level__gt=""), name="user_bots_idx"
            ),
            # ``username__iexact`` (log-in, profiles, invitations, blocks) compiles to
            # UPPER("username") = UPPER(%s) on PostgreSQL: this index answers it, where
            # the unique one on LOWER(username) cannot.
            models.Index(Upper("username"), name="user_username_upper_idx"),
            # The digest job reads only the players whose digest is due.
            models.Index(
                fields=["digest_due_at"],
                condition=models.Q(digest_due_at__isnull=False),
                name="user_digest_due_idx",
            ),
            # The guests' expiry reads only the guests whose time has come.
            models.Index(
                fields=["guest_until"],
                condition=models.Q(guest_until__isnull=False),
                name="user_guest_until_idx",
            ),
        ]

    def save(self, *args, **kwargs):
        # set_password() keeps the new raw password until the next save: a password
        # change or reset of an existing account. Scripts holding a token keep working
        # after a password change no more than a session does.
        password_changed = self._password is not None and self.pk is not None
        update_fields = kwargs.get("update_fields")
        if update_fields is None or "time_zone" in update_fields:
            self.schedule_digest()
            if update_fields is not None:
                kwargs["update_fields"] = {*update_fields, "digest_due_at"}
        super().save(*args, **kwargs)
        if password_changed:
            # what they opened closes once this commits (accounts.tokens.token_deleted)
            self.api_tokens.all().delete()

    @property
    def is_computer(self) -> bool:
        """One of the project's own computer opponents (``bot_level``): the worker plays
        its moves (games.bot_turns); it accepts at once, never times out, takes no
        holidays and does not chat."""
        return bool(self.bot_level)

    @property
    def is_program(self) -> bool:
        """A program plays this account: a computer opponent or a bot account. Marked as
        such beside its name everywhere (``program_mark``); no chat in its games."""
        return bool(self.bot_level) or self.bot_account

    @property
    def program_mark(self) -> str:
        """What the mark beside the name says (``bot_mark``): a computer opponent's
        level, ``BOT_ACCOUNT_MARK`` for a bot account, "" for a person."""
        if self.bot_level:
            return self.bot_level
        return BOT_ACCOUNT_MARK if self.bot_account else ""

    @property
    def is_guest(self) -> bool:
        """A visitor's account that plays the computer only (``guest_until``)."""
        return self.guest_until is not None

    def email_confirmed(self) -> bool:
        """Whether ``email`` is an address this player confirmed through its link."""
        from allauth.account.models import EmailAddress

        return (
            bool(self.email)
            and EmailAddress.objects.filter(
                user=self, email__iexact=self.email, verified=True
            ).exists()
        )

    @staticmethod
    def confirmed(users) -> set[int]:
        """``email_confirmed`` for many players in one query: the ids of those whose
        ``email`` is an address they confirmed."""
        from allauth.account.models import EmailAddress

        addresses = {user.pk: user.email.lower() for user in users if user.email}
        found = EmailAddress.objects.filter(user_id__in=list(addresses), verified=True)
        return {
            user_id
            for user_id, email in found.values_list("user_id", "email")
            if addresses.get(user_id) == email.lower()
        }

    @property
    def zone(self) -> zoneinfo.ZoneInfo:
        """The player's time zone (UTC if the stored name is no longer known)."""
        try:
            return zoneinfo.ZoneInfo(self.time_zone or "UTC")
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):
            return zoneinfo.ZoneInfo("UTC")

    def schedule_digest(self, on: bool | None = None, now: datetime | None = None) -> None:
        """Keep ``digest_due_at`` in step with the choice of a daily email and the zone.

        ``on``: whether the player wants the daily email (games.notify.preferences says
        when the choice changes); None: as before, a daily hour being due or not.
        Off: none. On: the next ``DIGEST_HOUR`` of the player's zone, unless an earlier
        one of the same zone is still waiting (the worker was down, or a save came
        between the hour and the worker's round): that day's digest still goes out.
        """
        if on is None:
            on = self.digest_due_at is not None
        if not on:
            self.digest_due_at = None
            return
        from django.utils import timezone

        now = now or timezone.now()
        upcoming = next_digest_at(self.zone, now)
        kept = self.digest_due_at
        if kept is not None and kept <= upcoming:
            local = kept.astimezone(self.zone)
            if local.timetz().replace(tzinfo=None) == DIGEST_HOUR and upcoming - kept <= timedelta(
                days=1
            ):
                return
        self.digest_due_at = upcoming

    @property
    def is_suspended(self) -> bool:
        from django.utils import timezone

        return self.suspended_until is not None and self.suspended_until > timezone.now()


TOKEN_PREFIX = "shg_"


def hash_token(raw: str) -> str:
    return hashlib.sha256(raw.encode()).hexdigest()


class ApiToken(models.Model):
    """A personal token for scripts and bots, sent as ``Authorization: Bearer …``.

    Only a hash is stored: the token is shown once, when it is made.
    """

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(_("name"), max_length=60)
    digest = models.CharField(max_length=64, unique=True, editable=False)
    hint = models.CharField(max_length=12, editable=False, help_text=_("the token's first letters"))
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    # What the token may do (``accounts.tokens.SCOPES``), space-separated: ``read`` (the
    # GET operations and the streams), ``play`` (everything a player does), ``bot`` (make
    # the account a bot account).
    scopes = models.CharField(max_length=40, default="read play", db_default="read play")
    # After this moment the token is refused everywhere; None: until revoked.
    expires_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self):
        return f"{self.name} ({self.hint}…)"

    @property
    def scope_set(self) -> frozenset[str]:
        return frozenset(self.scopes.split())

    @property
    def scope_list(self) -> list[str]:
        """Its scopes in the order of ``accounts.tokens.SCOPES`` (read, play, bot)."""
        order = ("read", "play", "bot")
        return sorted(self.scope_set, key=lambda s: order.index(s) if s in order else len(order))

    @property
    def expired(self) -> bool:
        from django.utils import timezone

        return self.expires_at is not None and self.expires_at <= timezone.now()

    @classmethod
    def issue(
        cls, user: User, name: str, scopes=("read", "play"), expires_at=None
    ) -> tuple["ApiToken", str]:
        raw = TOKEN_PREFIX + secrets.token_urlsafe(32)
        token = cls.objects.create(
            user=user,
            name=name,
            digest=hash_token(raw),
            hint=raw[:8],
            scopes=" ".join(sorted(set(scopes))),
            expires_at=expires_at,
        )
        return token, raw


HOLIDAY_DAYS_PER_YEAR = 30


class Holiday(models.Model):
    """An away period in whole days of the player's time zone: their deadlines pause."""

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="holidays")
    start = models.DateField(_("start"), help_text=_("first day away"))
    end = models.DateField(_("end"), help_text=_("last day away"))
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["start"]

    def __str__(self):
        return f"{self.user} away {self.start} – {self.end}"

    @property
    def days(self) -> int:
        return (self.end - self.start).days + 1


class Block(models.Model):
    """``user`` does not want invitations or chat from ``blocked``."""

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="blocks")
    blocked = models.ForeignKey(User, on_delete=models.CASCADE, related_name="blocked_by")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "blocked"], name="block_once")]

    def __str__(self):
        return f"{self.user} blocks {self.blocked}"

    @staticmethod
    def between(a, b) -> bool:
        """Whether either of two users blocks the other."""
        return Block.objects.filter(
            models.Q(user=a, blocked=b) | models.Q(user=b, blocked=a)
        ).exists()


class PushSubscription(models.Model):
    """One browser (a phone, a computer, an app on the home screen) that receives this
    player's push notifications: what its push service gave it to reach it."""

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="push_subscriptions")
    # At most shanghaien.lib.webpush.ENDPOINT_MAX characters; one account each.
    endpoint = models.CharField(max_length=1024, unique=True)
    p256dh = models.CharField(max_length=100, help_text=_("the browser's public key"))
    auth = models.CharField(max_length=32, help_text=_("the browser's secret"))
    vapid_key = models.CharField(
        max_length=100, help_text=_("the server's public key the browser subscribed with")
    )
    user_agent = models.CharField(_("browser"), max_length=300, blank=True)
    created_at = models.DateTimeField(_("added"), auto_now_add=True)
    last_success_at = models.DateTimeField(_("last delivered"), null=True, blank=True)

    class Meta:
        ordering = ["created_at", "id"]

    def __str__(self):
        return f"{self.user} on {self.user_agent[:40] or self.pk}"


NOTICE_SUBJECT_MAX = 200


class Notice(models.Model):
    """A word to a player from the site's moderators (what became of their report; what
    was done about them, and why): shown at the top of their pages until they dismiss it,
    and emailed (``games.notify``, kind "notice").

    Written once, in the player's own language at the time (the moderators' service
    composes it), so that the page and the email say the same words."""

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="notices")
    subject = models.CharField(max_length=NOTICE_SUBJECT_MAX)
    body = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True)
    dismissed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["created_at", "id"]
        indexes = [
            # the notices a page shows: the player's, not dismissed
            models.Index(
                fields=["user", "created_at"],
                condition=models.Q(dismissed_at__isnull=True),
                name="notice_shown_idx",
            )
        ]

    def __str__(self):
        return f"{self.user}: {self.subject}"


class Follow(models.Model):
    """``follower`` follows ``followed``: the one sees the other on their friends page,
    and the other's open invitations marked in their lobby. No consent is asked (the
    followed player is not told); a block between the two removes it and refuses a new
    one (``accounts.follows``)."""

    # no index of their own: the two below begin with each of them
    follower = models.ForeignKey(
        User, on_delete=models.CASCADE, related_name="follows", db_index=False
    )
    followed = models.ForeignKey(
        User, on_delete=models.CASCADE, related_name="followers", db_index=False
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            # also the index of "whom does this player follow" (its first column)
            models.UniqueConstraint(fields=["follower", "followed"], name="follow_once"),
        ]
        # "who follows this player": a block's removal of follows both ways, and the
        # row's deletion with the followed account
        indexes = [models.Index(fields=["followed", "follower"], name="follow_followed_idx")]

    def __str__(self):
        return f"{self.follower} follows {self.followed}"
