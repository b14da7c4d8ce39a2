"""The account endpoints' messages, declared once: the bodies they take and the answers
they give (``accounts.api``; the base and the error envelope: ``shanghaien.lib.schemas``)."""

from __future__ import annotations

import datetime as dt

from pydantic import Field

from shanghaien.lib.schemas import Body, Message


class HolidayBody(Body):
    """A holiday to declare: its first and last day, in the player's time zone."""

    codes = {"start": "bad_date", "end": "bad_date"}

    start: str = Field(json_schema_extra={"format": "date"}, examples=["2026-12-24"])
    end: str = Field(json_schema_extra={"format": "date"}, examples=["2026-12-27"])


class Holiday(Message):
    id: int
    start: dt.date
    end: dt.date
    days: int = Field(ge=1)


class Holidays(Message):
    holidays: list[Holiday]


class HolidayCancelled(Message):
    cancelled: int


class BlockBody(Body):
    """The player to block, by name."""

    username: str


class Blocked(Message):
    blocked: str


class BlockList(Message):
    blocked: list[str]


class Unblocked(Message):
    unblocked: str


class FollowBody(Body):
    """The player to follow, by name."""

    username: str


class Followed(Message):
    following: str


class FollowList(Message):
    following: list[str]


class Unfollowed(Message):
    unfollowed: str


class SubscriptionKeys(Message):
    p256dh: str
    auth: str


class SubscribeBody(Body):
    """A browser's ``PushSubscription.toJSON()`` (``expirationTime`` is taken and not kept)."""

    codes = {"endpoint": "bad_endpoint", "keys": "bad_keys"}
    missing_codes = {}

    endpoint: str
    keys: SubscriptionKeys
    expirationTime: int | float | None = None  # noqa: N815  (the browser's own name)


class Device(Message):
    id: int
    name: str
    created_at: dt.datetime
    last_success_at: dt.datetime | None


class PushInfo(Message):
    """The key a browser subscribes with ("" when this server sends no push), and the
    player's devices."""

    public_key: str
    devices: list[Device]


class DeviceRemoved(Message):
    removed: int


class BotAccount(Message):
    """``POST /api/account/bot/``: the account, now a bot account for good."""

    username: str
    bot_account: bool
