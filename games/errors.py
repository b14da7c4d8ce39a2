"""Typed errors of the service layer; each knows its HTTP status and a stable code."""

from __future__ import annotations


class ServiceError(Exception):
    status = 400

    def __init__(self, code: str, message: str):
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
