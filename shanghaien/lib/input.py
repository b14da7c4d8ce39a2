"""One way in for what strangers send: JSON, text, ids and client ids.

The JSON API, the form views and both websocket consumers parse and check their input
here, so that a hostile body is refused with a clear code before any of it reaches the
database or the rules (PostgreSQL refuses NUL characters and lone surrogates with an
exception; Python's JSON parser recurses once per level of nesting).
"""

from __future__ import annotations

import json
import re
import unicodedata
from typing import Any

from django.core.exceptions import RequestDataTooBig
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from ninja.parser import Parser

from .errors import BadRequest, TooLarge

# Deeper than any message of ours (a command is three levels deep); far below the
# interpreter's recursion limit, so nothing that walks a parsed body can overflow it.
MAX_JSON_DEPTH = 16

# PostgreSQL's bigint: a larger id cannot name a row, and SQLite raises on it.
MAX_ID = 2**63 - 1
_ID = re.compile(r"[0-9]{1,19}")

CLIENT_ID_PATTERN = r"[A-Za-z0-9_.:-]{1,64}"
_CLIENT_ID = re.compile(CLIENT_ID_PATTERN)

# Usernames as Django's validator allows them (letters, digits and @ . + - _).
USERNAME_PATTERN = r"[\w.@+-]{1,150}"
_USERNAME = re.compile(USERNAME_PATTERN)


def _no_constant(name: str):
    raise ValueError(f"{name} is not JSON")


def json_depth(value: Any) -> int:
    """How deeply lists and objects nest in ``value`` (a scalar is 0), without recursing."""
    deepest = 0
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        deepest = max(deepest, depth)
        if deepest > MAX_JSON_DEPTH:
            return deepest
        stack.extend((child, depth + 1) for child in children)
    return deepest


def parse_json(raw: bytes | str) -> Any:
    """The JSON document in ``raw``, or ``malformed_json``.

    Refused as well: nesting deeper than MAX_JSON_DEPTH, and NaN or Infinity (not JSON,
    and no database column takes them).
    """
    try:
        data = json.loads(raw, parse_constant=_no_constant)
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise BadRequest("malformed_json", _("The body is not valid JSON.")) from None
    if json_depth(data) > MAX_JSON_DEPTH:
        message = ngettext(
            "JSON nested more than %(depth)d level deep is refused.",
            "JSON nested more than %(depth)d levels deep is refused.",
            MAX_JSON_DEPTH,
        )
        raise BadRequest("malformed_json", message % {"depth": MAX_JSON_DEPTH})
    return data


# The largest JSON body the API reads (a command, a chat line, an invitation: well below).
MAX_BODY = 16 * 1024


class JsonBodyParser(Parser):
    """The API's body reader (django-ninja's ``Parser``): at most MAX_BODY bytes, JSON as
    ``parse_json`` reads it, and an object. Whatever the Content-Type says, the body is
    JSON: the API never reads a form."""

    def parse_body(self, request) -> dict:
        try:
            raw = request.body
        except RequestDataTooBig:
            raise TooLarge(MAX_BODY) from None
        if len(raw) > MAX_BODY:
            raise TooLarge(MAX_BODY)
        data = parse_json(raw)
        if not isinstance(data, dict):
            raise BadRequest("bad_request", _("The body is a JSON object."))
        return data


def _refused_character(char: str, multiline: bool) -> bool:
    if multiline and char in "\n\r\t":
        return False
    category = unicodedata.category(char)
    if category in ("Cc", "Cs"):  # control characters (NUL among them), lone surrogates
        return True
    code = ord(char)
    # The Unicode non-characters: U+FDD0..U+FDEF and the last two code points of each plane.
    return 0xFDD0 <= code <= 0xFDEF or (code & 0xFFFE) == 0xFFFE


def clean_text(
    value: Any,
    field: str,
    *,
    max_length: int,
    required: bool = True,
    multiline: bool = False,
    invalid: str = "bad_text",
    too_long: str = "too_long",
) -> str:
    """``value`` trimmed, if it is text a person could have typed, else ``bad_text``.

    Control characters (NUL included; line breaks and tabs only where ``multiline``), lone
    surrogates and non-characters are refused, whatever the field. ``invalid`` is the
    code for a value that is not text or is empty when ``required``; ``too_long`` the
    code for more than ``max_length`` characters. Every message names the field.
    """
    if not isinstance(value, str):
        raise BadRequest(invalid, _("'%(field)s' is text.") % {"field": field})
    if any(_refused_character(char, multiline) for char in value):
        raise BadRequest(
            "bad_text",
            _("'%(field)s' holds characters that are not text (control or non-characters).")
            % {"field": field},
        )
    text = value.strip()
    if required and not text:
        raise BadRequest(invalid, _("'%(field)s' is empty.") % {"field": field})
    if len(text) > max_length:
        raise BadRequest(
            too_long,
            ngettext(
                "'%(field)s' has at most %(max)d character.",
                "'%(field)s' has at most %(max)d characters.",
                max_length,
            )
            % {"field": field, "max": max_length},
        )
    return text


def parse_id(value: Any) -> int | None:
    """A row id from a URL or a body: a positive whole number (ASCII digits), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        number = value
    elif isinstance(value, str) and _ID.fullmatch(value):
        number = int(value)
    else:
        return None
    return number if 0 < number <= MAX_ID else None


def is_client_id(value: Any) -> bool:
    """1–64 letters, digits or ``- _ . :``, the whole string (no trailing newline)."""
    return isinstance(value, str) and _CLIENT_ID.fullmatch(value) is not None


def is_username(value: Any) -> bool:
    return isinstance(value, str) and _USERNAME.fullmatch(value) is not None


def username(value: Any, field: str) -> str:
    """A username to look up: text of a name's characters, else ``bad_text``."""
    name = clean_text(value, field, max_length=150, invalid="bad_request")
    if not is_username(name):
        raise BadRequest(
            "bad_text",
            _("'%(field)s' is a username: letters, digits and @ . + - _.") % {"field": field},
        )
    return name


class UsernameConverter:
    """``<username:name>`` in URL patterns: a name that can exist, else the route is a 404."""

    regex = USERNAME_PATTERN

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value
