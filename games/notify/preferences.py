"""Each player's notification choices: stored, read, asked for, and turned off by a link.

The choices are kept on the player's account (``User.notification_choices``, a JSON
object that the accounts app stores and never reads) under the field names of the kinds'
table (``kinds``): ``{"email_on_turn": true, …}``. A choice not stored is the table's
default, so a new account stores nothing, and a new kind needs no data of its own.

``wants`` is the whole policy of who is told what, by which channel.
"""

from __future__ import annotations

from django import forms
from django.core import signing
from django.utils.text import capfirst
from django.utils.translation import gettext_lazy as _

from accounts.forms import TimeZoneField
from accounts.models import User

from . import kinds
from .kinds import EMAIL, PUSH

FIELD = "notification_choices"  # the account's column that holds them
UNSUBSCRIBE_SALT = "accounts.unsubscribe"  # these signatures are good for nothing else


def chosen(user, field: str) -> bool:
    """The player's choice ``field`` (a ``kinds.Choice.field``): stored, or the default."""
    stored = getattr(user, FIELD) or {}
    if field in stored:
        return bool(stored[field])
    return next((c.default for _k, _c, c in kinds.all_choices() if c.field == field), False)


def choices_of(user) -> dict[str, bool]:
    """Every choice of the player, by field name (the form's initial values)."""
    return {choice.field: chosen(user, choice.field) for _k, _c, choice in kinds.all_choices()}


def replaced(user, kind: kinds.Kind) -> bool:
    """Whether another kind the player chose stands in for ``kind``'s emails (the daily
    digest, for the turn emails)."""
    return any(
        other.email and kind.name in other.replaces and chosen(user, other.email.field)
        for other in kinds.KINDS
    )


def wants(user, kind_name: str, channel: str) -> bool:
    """Whether to tell this player of ``kind_name`` by ``channel``: the one place of the
    policy.

    Only a kind of the table, by a channel it uses, as the player chose (the table's
    default until they do). Never to a computer opponent or a closed account. An email
    only while no chosen kind stands in for it (``Kind.replaces``), and never to an address
    the player has not confirmed (asked last, so that a player who wants nothing costs no
    query); a push only if the player has a device (``User.push_devices``).
    """
    kind = kinds.get(kind_name)
    choice = kind.choice(channel) if kind else None
    if choice is None or not user.is_active or user.bot_level:
        return False
    if channel == EMAIL:
        if not user.email or not chosen(user, choice.field) or replaced(user, kind):
            return False
        return user.email_confirmed()
    if channel == PUSH:
        return bool(user.push_devices) and chosen(user, choice.field)
    return False


def wanting(users, kind_name: str, channel: str) -> set[int]:
    """``wants`` for many players at once: the ids of those to tell, by the same policy,
    the addresses' confirmation read in one query for all of them."""
    kind = kinds.get(kind_name)
    choice = kind.choice(channel) if kind else None
    if choice is None:
        return set()
    users = [u for u in users if u.is_active and not u.bot_level and chosen(u, choice.field)]
    if channel == PUSH:
        return {u.pk for u in users if u.push_devices}
    if channel == EMAIL:
        return User.confirmed([u for u in users if u.email and not replaced(u, kind)])
    return set()


def choose(user, **values: bool) -> None:
    """Store some of the player's choices (by field name), and keep their daily hour in
    step with a daily kind's choice (``User.schedule_digest``)."""
    fields = {choice.field: kind for kind, _c, choice in kinds.all_choices()}
    unknown = set(values) - set(fields)
    if unknown:
        raise ValueError(f"no such notification choice: {', '.join(sorted(unknown))}")
    stored = dict(getattr(user, FIELD) or {})
    stored.update({name: bool(value) for name, value in values.items()})
    setattr(user, FIELD, stored)
    update = [FIELD]
    if any(fields[name].daily for name in values):
        user.schedule_digest(on=wants_daily(user))
        update.append("digest_due_at")
    if user.pk is not None:
        user.save(update_fields=update)


def wants_daily(user) -> bool:
    """Whether the player chose a kind sent at their daily hour (the digest)."""
    return any(kind.daily and kind.email and chosen(user, kind.email.field) for kind in kinds.KINDS)


# -- the one-click unsubscribe link of every email of ours --------------------------------


def unsubscribe_token(user, kind_name: str) -> str:
    """The signed token of the link, in an email of ``kind_name``, that turns those emails
    off without logging in. It names the player and the kind; it has no expiry, as the
    emails it is in stay in inboxes."""
    return signing.Signer(salt=UNSUBSCRIBE_SALT).sign_object([user.pk, kind_name])


def read_unsubscribe_token(token: str) -> tuple[int, kinds.Kind]:
    """(user id, kind) of an unsubscribe token; ``signing.BadSignature`` for a token this
    site did not sign with ``UNSUBSCRIBE_SALT``, or of a kind with no email."""
    try:
        user_id, name = signing.Signer(salt=UNSUBSCRIBE_SALT).unsign_object(token)
    except (TypeError, ValueError) as error:  # signed, but not a pair
        raise signing.BadSignature("not an unsubscribe token") from error
    kind = kinds.get(name) if type(name) is str else None
    if type(user_id) is not int or kind is None or kind.email is None:
        raise signing.BadSignature("not an unsubscribe token")
    return user_id, kind


def receives(user, kind: kinds.Kind) -> bool:
    """Whether the player's choice of ``kind``'s emails is on (the address aside)."""
    return chosen(user, kind.email.field)


def unsubscribe(user, kind: kinds.Kind) -> None:
    """Turn off ``kind``'s emails, and those it stands in for (turning the digest off
    does not start an email a turn where the player asked for less)."""
    off = [kind, *(kinds.get(name) for name in kind.replaces)]
    choose(user, **{other.email.field: False for other in off if other and other.email})


# -- the form: the settings page's, and the admin's ------------------------------------------


def choice_fields() -> dict[str, forms.BooleanField]:
    """A box for each choice of the table, by its field name."""
    return {
        choice.field: forms.BooleanField(label=choice.label, help_text=choice.help, required=False)
        for _kind, _channel, choice in kinds.all_choices()
    }


class ChoicesForm(forms.ModelForm):
    """A player's form with a box for each choice of the table, saved into their stored
    choices. The boxes are made when the form is (the admin's form declares them too,
    ``admin``), from the table as it is then."""

    class Meta:
        model = User
        fields: tuple[str, ...] = ()

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for name, field in choice_fields().items():
            self.fields.setdefault(name, field)
            self.initial.setdefault(name, chosen(self.instance, name))

    def save(self, commit=True):
        user = self.instance
        values = {name: self.cleaned_data[name] for name in choice_fields()}
        setattr(user, FIELD, {**(getattr(user, FIELD) or {}), **values})
        user.schedule_digest(on=wants_daily(user))
        return super().save(commit)  # one save: the account's fields and the choices


class PreferencesForm(ChoicesForm):
    """What a player wants by email and on their devices, and the language and time zone
    of their pages and emails. The address itself changes on the email page, where a new
    one replaces the old only once it is confirmed."""

    time_zone = TimeZoneField(label=capfirst(_("time zone")))

    class Meta:
        model = User
        fields = ("language", "time_zone")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # the player's own zone first; the page's script preselects the browser's zone
        # for a player still at the default (static/js/timezone.js)
        self.fields["time_zone"].offer(self.instance.time_zone)
        self.fields["time_zone"].widget.attrs["data-browser-zone"] = ""
        if self.instance.time_zone == User._meta.get_field("time_zone").default:
            self.fields["time_zone"].widget.attrs["data-zone-unchosen"] = ""

    def channels(self):
        """The table of the settings page: each kind with a ``title``, with its email and push
        boxes (None where it has no such channel)."""
        rows = []
        for kind in kinds.KINDS:
            if kind.title is None:
                continue
            boxes = []
            for channel in kinds.CHANNELS:
                choice = kind.choice(channel)
                if choice is None:
                    boxes.append(None)
                    continue
                # each box is named by its row and its column, for a screen reader
                labelled = f"channel-{kind.name} channel-{channel}"
                self.fields[choice.field].widget.attrs["aria-labelledby"] = labelled
                boxes.append(self[choice.field])
            rows.append((kind.name, kind.title, *boxes))
        return rows

    def boxes(self):
        """The boxes under the table: the kinds without a row of their own (the digest)."""
        return [
            self[kind.choice(channel).field]
            for kind in kinds.KINDS
            if kind.title is None
            for channel in kind.channels
        ]
