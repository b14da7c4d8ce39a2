"""Declared messages: the base of every body the site takes, and the error envelope.

A body is a pydantic model (``Body``): no field beyond those declared, no coercion of
types (``true`` is not ``1``, ``"2"`` is not ``2``). What a model cannot take is refused
as a ``BadRequest`` in the API's envelope ``{"error": {"code", "message"}}``, with a
translated message naming the field: the code is the one the model gives that field in
``codes`` (the code its service uses for a value of the wrong kind), else
``bad_request``. The services still check every value they are given; the models
declare the shapes, so that the OpenAPI schema says what the site takes.
"""

from __future__ import annotations

from typing import Any, ClassVar

from django.utils.translation import gettext as _
from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

from .errors import BadRequest


class Message(BaseModel):
    """A message in or out: no field beyond those declared, no coercion of types."""

    model_config = ConfigDict(extra="forbid", strict=True)


def _where(loc: tuple) -> str:
    return ".".join(str(part) for part in loc) or _("the body")


def _problem(error: dict) -> str:
    kind, field = error["type"], _where(error["loc"])
    if kind == "missing":
        return _("The body needs '%(field)s'.") % {"field": field}
    if kind in ("string_type", "string_sub_type"):
        return _("'%(field)s' is text.") % {"field": field}
    if kind in ("int_type", "int_parsing", "int_from_float"):
        return _("'%(field)s' is a whole number.") % {"field": field}
    if kind == "bool_type":
        return _("'%(field)s' is true or false.") % {"field": field}
    if kind in ("model_type", "model_attributes_type", "dict_type"):
        return _("'%(field)s' is a JSON object.") % {"field": field}
    if kind in ("literal_error", "enum", "union_tag_invalid", "union_tag_not_found"):
        return _("'%(field)s' is not one of the values it takes.") % {"field": field}
    if kind in ("string_too_long", "too_long"):
        return _("'%(field)s' is too long.") % {"field": field}
    if kind == "string_pattern_mismatch":
        return _("'%(field)s' is not in the form it takes.") % {"field": field}
    return _("'%(field)s' is not valid.") % {"field": field}


def refusal(
    error: ValidationError | list[dict],
    codes: dict[str, str] | None = None,
    missing: dict[str, str] | None = None,
) -> BadRequest:
    """The ``BadRequest`` for a body a model refused: unknown fields are named together;
    otherwise the first problem, with the code ``codes`` gives its (top) field, or
    ``missing`` gives it when the field is not there at all."""
    errors = error.errors(include_url=False) if isinstance(error, ValidationError) else error
    unknown = [_where(e["loc"]) for e in errors if e["type"] == "extra_forbidden"]
    if unknown:
        message = _("Unknown fields: %(fields)s.") % {"fields": ", ".join(sorted(unknown))}
        return BadRequest("bad_request", message)
    first = errors[0]
    top = str(first["loc"][0]) if first["loc"] else ""
    table = codes or {}
    if first["type"] == "missing" and len(first["loc"]) == 1 and missing is not None:
        table = missing
    return BadRequest(table.get(top, "bad_request"), _problem(first))


class Body(Message):
    """A request body. ``codes`` maps a field to the code of a value of the wrong kind
    (and of a missing one, unless ``missing_codes`` says otherwise); the others are
    ``bad_request``."""

    codes: ClassVar[dict[str, str]] = {}
    missing_codes: ClassVar[dict[str, str] | None] = None

    @model_validator(mode="wrap")
    @classmethod
    def _refused_as_bad_request(cls, data: Any, handler):
        if not isinstance(data, dict):
            raise BadRequest("bad_request", _("The body is a JSON object."))
        try:
            return handler(data)
        except ValidationError as error:
            raise refusal(error, cls.codes, cls.missing_codes) from None


class ErrorDetail(Message):
    code: str
    message: str
    retry_after: int | None = None  # with 429 and 503: the seconds to wait
    commitment: str | None = None  # with commitment_changed: the one now shown


class ErrorEnvelope(Message):
    """Every refusal: ``{"error": {"code", "message"}}`` (and ``retry_after`` with 429)."""

    error: ErrorDetail


def refusals(*statuses: int) -> dict[int, type[ErrorEnvelope]]:
    """The error answers an operation declares, besides the ones every operation has."""
    return dict.fromkeys((400, 401, 403, 413, 503, *statuses), ErrorEnvelope)
