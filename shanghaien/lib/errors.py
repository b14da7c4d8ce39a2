"""Typed errors of the service layer; each knows its HTTP status and a stable code."""

from __future__ import annotations

import math

from django.utils.translation import ngettext


class ServiceError(Exception):
    status = 400

    def __init__(self, code: str, message: str):
        message = str(message)  # a lazy translation becomes text in the active language
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message

    def to_json(self) -> dict:
        return {"error": {"code": self.code, "message": self.message}}


class BadRequest(ServiceError):
    """The request is malformed: wrong JSON, missing or mistyped fields."""


class Illegal(ServiceError):
    """The rules refuse the command; the code is the engine's."""


class NotAuthenticated(ServiceError):
    status = 401


class Forbidden(ServiceError):
    status = 403


class NotFound(ServiceError):
    status = 404


class Conflict(ServiceError):
    """Stale version, or an invitation no longer open."""

    status = 409


class TooLarge(ServiceError):
    status = 413

    def __init__(self, limit: int):
        super().__init__(
            "too_large",
            ngettext(
                "The body is larger than %(limit)d byte.",
                "The body is larger than %(limit)d bytes.",
                limit,
            )
            % {"limit": limit},
        )


class RateLimited(ServiceError):
    """Too many of one kind of request: try again after ``retry_after`` seconds. The code
    is ``rate_limited``, or a more telling one (``too_many_games``)."""

    status = 429

    def __init__(self, message: str, retry_after: float, code: str = "rate_limited"):
        super().__init__(code, message)
        self.retry_after = max(1, math.ceil(retry_after))

    def to_json(self) -> dict:
        body = super().to_json()
        body["error"]["retry_after"] = self.retry_after
        return body
