import hashlib
import secrets

from django.contrib.auth.models import AbstractUser, UserManager
from django.db import models
from django.db.models.functions import Lower
from django.utils.translation import gettext_lazy as _


class CaseInsensitiveUserManager(UserManager):
    def get_by_natural_key(self, username):
        # "Anna" logs in as the user "anna": names differ in more than case only.
        return self.get(username__iexact=username)


class User(AbstractUser):
    """A player or an admin."""

    email_on_turn = models.BooleanField(
        _("email me when it is my turn"),
        default=False,
        help_text=_("At most one email per game and turn."),
    )

    daily_digest = models.BooleanField(
        _("one email a day instead"),
        default=False,
        help_text=_("A daily list of the games waiting for you, instead of one email per turn."),
    )
    email_reminders = models.BooleanField(
        _("deadline reminders"),
        default=True,
        help_text=_("One email when a fifth of your time to move is left."),
    )

    suspended_until = models.DateTimeField(
        _("suspended until"),
        null=True,
        blank=True,
        help_text=_("suspended until then (far future: for good)"),
    )

    objects = CaseInsensitiveUserManager()

    class Meta(AbstractUser.Meta):
        constraints = [
            models.UniqueConstraint(Lower("username"), name="username_unique_ignoring_case"),
        ]
        permissions = [("suspend_user", "Can suspend a user and lift a suspension")]

    def save(self, *args, **kwargs):
        # set_password() keeps the new raw password until the next save: a password
        # change or reset of an existing account. Scripts holding a token keep working
        # after a password change no more than a session does.
        password_changed = self._password is not None and self.pk is not None
        super().save(*args, **kwargs)
        if password_changed:
            self.api_tokens.all().delete()

    def wants_email(self, kind: str) -> bool:
        """Whether to email this player about ``kind``: the one place of the email policy.

        ``turn``: one email per game and turn, unless they chose the daily digest instead;
        ``invitation``: with the turn emails; ``reminder``: when a fifth of the time to move
        is left; ``digest``: the daily list of games waiting; ``timeout``: a game lost or
        won on time, always. Never without an address, nor to a closed account.
        """
        if not (self.email and self.is_active):
            return False
        return {
            "turn": self.email_on_turn and not self.daily_digest,
            "invitation": self.email_on_turn,
            "reminder": self.email_reminders,
            "digest": self.daily_digest,
            "timeout": True,
        }.get(kind, False)

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

    class Meta:
        ordering = ["-created_at"]

    def __str__(self):
        return f"{self.name} ({self.hint}…)"

    @classmethod
    def issue(cls, user: User, name: str) -> tuple["ApiToken", str]:
        raw = TOKEN_PREFIX + secrets.token_urlsafe(32)
        token = cls.objects.create(user=user, name=name, digest=hash_token(raw), hint=raw[:8])
        return token, raw


HOLIDAY_DAYS_PER_YEAR = 30


class Holiday(models.Model):
    """An away period in whole days (UTC): the player's deadlines pause during it."""

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
