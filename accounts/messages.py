"""The account endpoints' messages, declared once: the bodies they take and the answers
they give (``accounts.api``; the base and the error envelope: ``shanghaien.lib.schemas``)."""

from __future__ import annotations

import datetime as dt
from typing import Literal

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


# -- personal API tokens ---------------------------------------------------------------------

Scope = Literal["read", "play", "bot"]


class TokenBody(Body):
    """A token to make: its name, its scopes (``read``: the GET operations and the
    streams; ``play``: everything a player does, ``read`` included; ``bot``: make the
    account a bot account), and for how many days it holds (none: until revoked).

    Without a session, the account's ``username`` (or email) and ``password``; staff add
    ``code``, their authenticator app's code or one of their recovery codes."""

    codes = {
        "name": "bad_text",
        "scopes": "bad_scopes",
        "expires_in_days": "bad_expiry",
    }
    missing_codes = {"name": "bad_text", "scopes": "bad_scopes"}

    name: str = Field(examples=["my bot"])
    scopes: list[Scope] = Field(min_length=1, max_length=3, examples=[["read", "play"]])
    expires_in_days: int | None = Field(None, ge=1, le=365, examples=[30])
    username: str | None = Field(None, max_length=254)
    password: str | None = Field(None, max_length=4096)
    code: str | None = Field(None, max_length=64)


class TokenInfo(Message):
    """A token as its account sees it: never its value (shown once) nor its digest."""

    id: int
    name: str
    hint: str  # the token's first letters
    scopes: list[Scope]
    created_at: dt.datetime
    last_used_at: dt.datetime | None
    expires_at: dt.datetime | None  # None: until revoked


class TokenCreated(TokenInfo):
    """The new token, with its value: shown this once, kept nowhere."""

    token: str


class TokenList(Message):
    tokens: list[TokenInfo]


class TokenRevoked(Message):
    revoked: int


class BotAccount(Message):
    """``POST /api/account/bot/``: the account, now a bot account for good."""

    username: str
    bot_account: bool
