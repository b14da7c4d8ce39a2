"""Hostile paths and form posts for the fuzz tests: ids and names in URLs, and the
urlencoded and multipart bodies that browsers and attackers send."""

from __future__ import annotations

from urllib.parse import quote_from_bytes

from hypothesis import strategies as st

from .strategies import cut, dumps, hostile_text, pick

# -- URLs and forms --------------------------------------------------------------------------
JUNK_IDS = [
    "0",
    "-1",
    "00001",
    "1.0",
    "1e3",
    "0x1",
    "+1",
    "1_0",
    " 1",
    "1 ",
    "\u0661",
    "\u00b2",
    "\uff11",  # fullwidth 1
    "9" * 19,
    "9" * 20,
    "9" * 400,
    str(2**63 - 1),
    str(2**63),
    "%00",
    "1%00",
    "%0A",
    "1%0A",
    "%ED%A0%80",
    "%FF",
    "%",
    "%zz",
    "..",
    ".",
    "a" * 3000,
    "null",
    "undefined",
    "[1]",
]


def quoted(segment: str) -> str:
    """Percent-encoded as UTF-8, lone surrogates included (as a broken client would send them)."""
    return quote_from_bytes(segment.encode("utf-8", "surrogatepass"), safe="")


@st.composite
def path_part(draw, valid) -> str:
    """A path segment: one of ``valid`` (mostly) or junk, percent-encoded as a client would."""
    kind = draw(st.sampled_from(["valid"] * 5 + ["junk", "number", "text"]))
    if kind == "valid":
        return str(pick(draw, list(valid), "1"))
    if kind == "junk":
        return draw(st.sampled_from(JUNK_IDS))
    if kind == "number":
        return str(draw(st.integers()))
    return quoted(draw(hostile_text.filter(bool)))


def form_encode(fields: list[tuple[str, str | bytes]]) -> bytes:
    def raw(value):
        return value if isinstance(value, bytes) else value.encode("utf-8", "surrogatepass")

    return b"&".join(
        quote_from_bytes(raw(k), safe="").encode()
        + b"="
        + quote_from_bytes(raw(v), safe="").encode()
        for k, v in fields
    )


BOUNDARY = "fuzzBoundary42"


def multipart(fields: list[tuple[str, str | bytes]], boundary: str = BOUNDARY) -> bytes:
    parts = []
    for key, value in fields:
        value = value if isinstance(value, bytes) else value.encode("utf-8", "surrogatepass")
        parts.append(
            b"--"
            + boundary.encode()
            + b'\r\nContent-Disposition: form-data; name="'
            + key.encode("utf-8", "surrogatepass")
            + b'"\r\n\r\n'
            + value
            + b"\r\n"
        )
    return b"".join(parts) + b"--" + boundary.encode() + b"--\r\n"


form_values = st.one_of(
    hostile_text,
    st.binary(max_size=12),  # sent as they are: invalid UTF-8 among them
    st.sampled_from(["on", "off", "1", "0", "true", "", "2026-13-01", "9999-12-31"]),
)


# usernames as a form or a path may carry them
NAMES = ["anna", "bernd", "carl", "BERND", "Carl", "nobody", "bernd ", "bern\u0000d", "é", ""]


def mostly(valid: st.SearchStrategy, junk: st.SearchStrategy = form_values):
    """Three times in four a value the form takes: the form's own checks get their share."""
    return st.integers(0, 3).flatmap(lambda i: valid if i else junk)


@st.composite
def form_post(draw, fields: dict[str, st.SearchStrategy]) -> tuple[bytes, str]:
    """(body, content type) of a form post: the fields drawn, then broken in transport."""
    pairs = [(name, draw(strategy)) for name, strategy in fields.items()]
    for _ in range(draw(st.sampled_from([0, 0, 0, 1, 1, 2, 3]))):
        how = draw(st.sampled_from(["drop", "junk", "repeat", "unknown"]))
        index = cut(draw, len(pairs) - 1) if pairs else None
        if index is None:
            continue
        if how == "drop":
            pairs.pop(index)
        elif how == "junk":
            pairs[index] = (pairs[index][0], draw(form_values))
        elif how == "repeat":
            pairs.append((pairs[index][0], draw(form_values)))
        else:
            pairs.append((draw(hostile_text), draw(form_values)))
    form = draw(
        st.sampled_from(
            ["urlencoded"] * 6 + ["multipart"] * 2 + ["broken", "many", "latin1", "json"]
        )
    )
    if form == "multipart":
        return multipart(pairs), f"multipart/form-data; boundary={BOUNDARY}"
    if form == "broken":
        body = draw(
            st.sampled_from([multipart(pairs)[:-5], b"--nope\r\n", b"", form_encode(pairs)])
        )
        content_type = draw(
            st.sampled_from(
                [
                    f"multipart/form-data; boundary={BOUNDARY}",
                    "multipart/form-data",
                    "multipart/form-data; boundary=",
                    "multipart/form-data; boundary=" + "b" * 300,
                ]
            )
        )
        return body, content_type
    if form == "many":
        return form_encode(pairs + [("f", "x")] * 1001), "application/x-www-form-urlencoded"
    if form == "latin1":
        return form_encode(pairs), "application/x-www-form-urlencoded; charset=latin-1"
    if form == "json":
        return dumps(
            {k: v.decode("latin-1") if isinstance(v, bytes) else v for k, v in pairs}
        ).encode("utf-8", "surrogatepass"), "application/json"
    return form_encode(pairs), "application/x-www-form-urlencoded"
