"""Hostile input for the fuzz tests: JSON-ish values, mutations of real messages, and the
bytes and text frames that carry them, broken in the ways clients and attackers break them.
"""

from __future__ import annotations

import copy
import json
import math
import os
import re
from pathlib import Path

from hypothesis import seed, settings
from hypothesis import strategies as st

SEED = int(os.environ.get("FUZZ_SEED", "20260611"))
PROFILE = os.environ.get("FUZZ_PROFILE", "default")

MAX_BODY = 16 * 1024  # games.api.MAX_BODY and consumers.MAX_FRAME
FORM_LIMIT = 256 * 1024  # settings.DATA_UPLOAD_MAX_MEMORY_SIZE
DOCS = Path(__file__).resolve().parents[2] / "docs"


def fuzz(weight: float = 1.0):
    """The fuzz profile (FUZZ_PROFILE) and the seed, with ``weight`` times its examples."""
    profile = settings.get_profile(f"fuzz-{PROFILE}")
    examples = max(1, math.ceil(profile.max_examples * weight))

    def apply(test):
        return seed(SEED)(settings(profile, max_examples=examples)(test))

    return apply


def undocumented(codes, doc: str) -> list[str]:
    """The codes that ``docs/<doc>`` never names."""
    text = (DOCS / doc).read_text()
    return sorted(c for c in codes if not re.search(rf"(?<!\w){re.escape(c)}(?!\w)", text))


def pick(draw, items, default=None):
    """One of ``items``, drawn so that how many there are does not change what is drawn.

    The examples act on a database that changes between them (a command accepted, an
    invitation answered): Hypothesis requires the same draws, with the same bounds, for
    the same choices, so every draw here has bounds that never depend on that state.
    """
    index = draw(st.integers(0, 2**16 - 1))
    return items[index % len(items)] if items else default


def cut(draw, length: int) -> int:
    """A position in something ``length`` long (0 … length), with state-free bounds."""
    return draw(st.integers(0, 2**16 - 1)) % (length + 1)


# -- values ------------------------------------------------------------------------------

HOSTILE_STRINGS = [
    "",
    " ",
    "\u0000",
    "a\u0000b",
    "\ud800",  # lone surrogates
    "\udfff",
    "x\udc80y",
    "\udfff\ud800",
    "\uffff",  # non-characters
    "\ufffe",
    "\ufdd0",
    "\U0010ffff",
    "\U0001fffe",
    "\x07",
    "\x1b[31mred",
    "\x7f",
    "\x85",
    "\r\n",
    "\t",
    "line\nbreak",
    "\u2028",
    "\u202e",
    "\u200b",
    "\ufeff",
    "\U0001f4a5",
    "e\u0301",
    "<script>alert(1)</script>",
    "'; DROP TABLE games_game; --",
    "%00",
    "%s%s%n",
    "{{ 7|add:7 }}",
    "../../etc/passwd",
    "NaN",
    "Infinity",
    "-0",
    "1e309",
    "null",
    "true",
    "0x10",
    "\u0661\u0662",  # Arabic-Indic digits
    "\u00b2",
    "١",
    "a" * 64 + "\n",
    "a" * 64,
    "a" * 65,
    "x" * 60,
    "x" * 61,
    "x" * 150,
    "x" * 151,
    "x" * 300,
    "x" * 301,
    "x" * 500,
    "x" * 501,
    "x" * 1000,
    "x" * 1001,
    "é" * 300,
    "\U0001f4a5" * 250,
    "z" * 6000,
]

hostile_text = st.one_of(
    st.sampled_from(HOSTILE_STRINGS),
    st.text(max_size=30),
    st.text(
        alphabet=st.characters(categories=["Cc", "Cs", "Co", "Cn", "Cf", "Zl", "Zp"]), max_size=8
    ),
    st.builds(
        lambda a, b, c: a + b + c,
        st.text(max_size=5),
        st.sampled_from(HOSTILE_STRINGS[:16]),
        st.text(max_size=5),
    ),
)

BIG_INTS = [2**31 - 1, 2**31, 2**53 + 1, 2**63 - 1, 2**63, 2**64, -(2**63) - 1, 10**30, -1, 0]
numbers = st.one_of(
    st.integers(-3, 40),
    st.sampled_from(BIG_INTS),
    st.integers(),
    st.floats(),  # NaN and the infinities become the non-JSON tokens NaN and Infinity
    st.sampled_from([0.0, -0.0, 1.0, 3.0, 0.5, 1e308, 5e-324]),
)
scalars = st.one_of(st.none(), st.booleans(), numbers, hostile_text)
keys = st.one_of(
    st.sampled_from(["type", "command", "text", "id", "game", "", "__proto__", "TYPE"]),
    hostile_text,
)
json_values = st.recursive(
    scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=4), st.dictionaries(keys, children, max_size=4)
    ),
    max_leaves=10,
)


chat_text = st.one_of(
    st.sampled_from(["gg", "Good luck!", " hi ", "x" * 500, "<b>bold</b>", "two\nlines"]),
    hostile_text,
)


class Raw(str):
    """Text put into the JSON as it is (a deep nesting, NaN, a 5000-digit number)."""


def _deep(levels: int, kind: str) -> str:
    if kind == "list":
        return "[" * levels + "1" + "]" * levels
    return '{"a":' * levels + "1" + "}" * levels


raw_values = st.one_of(
    st.builds(
        _deep,
        st.one_of(st.integers(14, 20), st.integers(20, 3000), st.sampled_from([5000, 8000])),
        st.sampled_from(["list", "dict"]),
    ),
    st.sampled_from(
        [
            "NaN",
            "Infinity",
            "-Infinity",
            "1e999",
            "-1e999",
            "1" + "0" * 5000,  # past int()'s 4300 digits
            "1.5e-400",
            "-0",
            '"\\ud800"',
            '"\\udfff\\ud800"',
            '"a\\u0000b"',
            '"\\uffff"',
            '"\\ufdd0"',
            '"\\u001b"',
            '"\\x41"',  # not a JSON escape
            "01",
            "+1",
            ".5",
            "tru",
            "'single'",
            "[1,]",
            '{"a":1,}',
        ]
    ),
).map(Raw)

any_value = st.one_of(scalars, json_values, raw_values)


# -- mutations of a real message ---------------------------------------------------------


def _positions(value, at=()):
    yield at
    if isinstance(value, dict):
        for key, child in value.items():
            yield from _positions(child, (*at, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            yield from _positions(child, (*at, index))


def _get(value, at):
    for step in at:
        value = value[step]
    return value


def _replaced(value, at, new):
    if not at:
        return new
    parent = _get(value, at[:-1])
    parent[at[-1]] = new
    return value


MUTATIONS = [
    "replace",
    "replace",
    "replace",
    "delete",
    "unknown_key",
    "wrap_list",
    "wrap_dict",
    "nest",
    "stringify",
    "retype",
    "rename_key",
    "raw",
]
RETYPED = [None, True, False, 0, 1, -1, "", [], {}, 1.5, "1"]


@st.composite
def mutated(draw, message, extra_values=(), max_mutations: int = 3):
    """``message`` unchanged (now and then), or broken at up to three places.

    ``extra_values`` are values worth trying at any position (ids that exist, names of
    players, command types): a mutation may make a message valid again, which is the
    point: the accepted path is fuzzed along with the refusals. What is drawn depends
    only on what was drawn before, never on the message's shape (see ``pick``).
    """
    value = copy.deepcopy(message)
    # Mostly one change: a message broken in one place reaches the deepest checks.
    count = draw(st.sampled_from([0, 0, 0, 1, 1, 1, 1, 2, 3]))
    for _ in range(min(count, max_mutations)):
        how = draw(st.sampled_from(MUTATIONS))
        at = pick(draw, list(_positions(value)))
        current = _get(value, at)
        if how == "replace":
            new = pick(draw, list(extra_values)) if draw(st.booleans()) else draw(any_value)
            if new is None and not extra_values:
                new = draw(any_value)
        elif how == "delete":
            if at:
                del _get(value, at[:-1])[at[-1]]
            continue
        elif how == "unknown_key":
            key, new = draw(keys), draw(any_value)
            if isinstance(current, dict):
                current[key] = new
                continue
        elif how == "wrap_list":
            new = [current]
        elif how == "wrap_dict":
            new = {draw(keys): current}
        elif how == "nest":
            new = current
            for _ in range(draw(st.integers(1, 20))):
                new = [new]
        elif how == "stringify":
            new = json.dumps(current) if draw(st.booleans()) else str(current)
        elif how == "retype":
            new = draw(st.sampled_from(RETYPED))
        elif how == "rename_key":
            variant = draw(st.integers(0, 4))
            if at and isinstance(at[-1], str):
                name = at[-1]
                renamed = [name.upper(), name + " ", " " + name, name + "\u0000", name * 2]
                parent = _get(value, at[:-1])
                parent[renamed[variant]] = parent.pop(name)
            continue
        else:
            new = draw(raw_values)
        value = _replaced(value, at, new)
    return value


# -- encodings -----------------------------------------------------------------------------


def dumps(value, ensure_ascii: bool = True, separators=None) -> str:
    """JSON text of ``value`` with each Raw piece spliced in as it is."""
    pieces: dict[str, str] = {}

    def mark(item):
        if isinstance(item, Raw):
            token = f"@@raw{len(pieces)}@@"
            pieces[token] = str(item)
            return token
        if isinstance(item, dict):
            return {k: mark(v) for k, v in item.items()}
        if isinstance(item, list):
            return [mark(v) for v in item]
        return item

    text = json.dumps(mark(value), ensure_ascii=ensure_ascii, separators=separators)
    for token, piece in pieces.items():
        text = text.replace(f'"{token}"', piece)
    return text


JUNK_BYTES = [
    b"\xff",
    b"\xfe\xff",
    b"\xc0\xaf",  # overlong "/"
    b"\xc3\x28",
    b"\xed\xa0\x80",  # a surrogate in UTF-8 form
    b"\xf4\x90\x80\x80",  # past U+10FFFF
    b"\x00",
    b"\xef\xbb\xbf",
    b"\x80",
    b'"',
    b"\\",
    b"{",
    b"]",
]
SIZES = [MAX_BODY - 1, MAX_BODY, MAX_BODY + 1, MAX_BODY + 100, 3 * MAX_BODY, FORM_LIMIT + 1]


def _pad(body: bytes, size: int) -> bytes:
    return body + b" " * max(0, size - len(body))


BODY_FORMS = [
    *["plain"] * 12,
    "utf8",
    "compact",
    "truncate",
    "splice",
    "deep_list",
    "deep_dict",
    "pad",
    "bytes",
    "empty",
    "utf16",
    "utf32",
    "bom",
    "duplicate_key",
]


@st.composite
def http_body(draw, value) -> bytes:
    """The body of a request carrying ``value``, as sent or broken on the way."""
    form = draw(st.sampled_from(BODY_FORMS))
    text = dumps(value)
    if form == "utf8":
        return dumps(value, ensure_ascii=False).encode("utf-8", "surrogatepass")
    body = text.encode()
    if form == "compact":
        return dumps(value, separators=(",", ":")).encode()
    if form == "truncate":
        return body[: max(0, cut(draw, len(body)) - 1)]
    if form == "splice":
        at = cut(draw, len(body))
        junk = draw(st.one_of(st.sampled_from(JUNK_BYTES), st.binary(min_size=1, max_size=4)))
        return body[:at] + junk + body[at:]
    if form in ("deep_list", "deep_dict"):
        levels = draw(st.one_of(st.integers(14, 20), st.integers(20, 3000)))
        opener = b"[" if form == "deep_list" else b'{"a":'
        closer = b"]" if form == "deep_list" else b"}"
        return opener * levels + body + closer * levels
    if form == "pad":
        return _pad(body, draw(st.sampled_from(SIZES)))
    if form == "bytes":
        return draw(st.binary(max_size=80))
    if form == "empty":
        return b""
    if form == "utf16":
        return text.encode("utf-16", "surrogatepass")
    if form == "utf32":
        return text.encode("utf-32", "surrogatepass")
    if form == "bom":
        return b"\xef\xbb\xbf" + body
    if form == "duplicate_key":
        key, repeated = (
            pick(draw, sorted(map(str, value)) if isinstance(value, dict) else []),
            draw(any_value),
        )
        if key is not None and body.startswith(b"{"):
            first = json.dumps(key).encode() + b": " + dumps(repeated).encode() + b", "
            return b"{" + first + body[1:]
    return body


FRAME_FORMS = [
    *["plain"] * 10,
    "raw_unicode",
    "truncate",
    "splice",
    "deep",
    "pad",
    "text",
    "empty",
    "binary",
]


@st.composite
def socket_frame(draw, value) -> tuple[str, str | bytes]:
    """("text", str) or ("bytes", bytes): a frame carrying ``value``, or broken."""
    form = draw(st.sampled_from(FRAME_FORMS))
    text = dumps(value)
    if form == "raw_unicode":  # lone surrogates and NUL as they are, not escaped
        return "text", dumps(value, ensure_ascii=False)
    if form == "truncate":
        return "text", text[: max(0, cut(draw, len(text)) - 1)]
    if form == "splice":
        at = cut(draw, len(text))
        junk = draw(st.sampled_from(["\x00", "\ud800", "\ufeff", '"', "\\", "{", "]", "\uffff"]))
        return "text", text[:at] + junk + text[at:]
    if form == "deep":
        levels = draw(st.one_of(st.integers(14, 20), st.integers(20, 3000)))
        return "text", "[" * levels + text + "]" * levels
    if form == "pad":
        size = draw(st.sampled_from(SIZES[:5]))
        pad = draw(st.sampled_from([" ", "é"]))  # é: within the limit in characters, not bytes
        return "text", text + pad * max(0, size - len(text))
    if form == "text":
        return "text", draw(hostile_text)
    if form == "empty":
        return "text", ""
    if form == "binary":
        return "bytes", draw(st.one_of(st.just(text.encode()), st.binary(max_size=64)))
    return "text", text
