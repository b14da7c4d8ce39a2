"""Every error code the code base can answer with is in the documents' error tables."""

import re
from pathlib import Path

from games import rules

ROOT = Path(__file__).resolve().parents[1]
APPS = ("accounts", "games", "moderation", "ratings", "shanghaien", "tournaments")

STATUS = {
    "BadRequest": 400,
    "Illegal": 400,
    "NotAuthenticated": 401,
    "Forbidden": 403,
    "NotFound": 404,
    "Conflict": 409,
}
# Codes that only the moderators' pages answer with (the admin and the console show them
# as messages); the API never does.
ADMIN_ONLY = {
    ("bad_days", 400),
    ("not_suspended", 409),
    ("resolved", 409),
    ("forbidden", 403),
    ("bad_handling", 400),
    ("no_message", 400),
    ("no_player", 400),
}


def sources():
    for app in APPS:
        for path in (ROOT / app).rglob("*.py"):
            if "migrations" not in path.parts:
                yield path.read_text()


def raised_codes() -> set[tuple[str, int]]:
    """(code, status) of every typed error raised with a literal code, and the rest."""
    pairs = set()
    for text in sources():
        for kind, code in re.findall(r"\b(\w+)\(\s*\"([a-z_]+)\"", text):
            if kind in STATUS:
                pairs.add((code, STATUS[kind]))
        # a rate limit with a code of its own (a bot account's games: too_many_games)
        pairs |= {(code, 429) for code in re.findall(r'RateLimited\([^)]*code="([a-z_]+)"', text)}
        # the text checker takes the codes of its callers as keywords
        pairs |= {(code, 400) for code in re.findall(r'(?:invalid|too_long)="([a-z_]+)"', text)}
    pairs |= {(code, 400) for code in rules.CODES}  # refusals of the rules engine
    pairs |= {
        ("bad_text", 400),
        ("too_long", 400),
        ("method_not_allowed", 405),
        ("too_large", 413),
        ("rate_limited", 429),
        ("server_error", 500),
        ("database_unavailable", 503),  # shanghaien.lib.outage
        ("commitment_changed", 409),  # games.services.commitments.CommitmentChanged
        ("too_many_streams", 429),  # games.live.streams.TooManyStreams
    }
    return pairs - ADMIN_ONLY


def documented_codes() -> set[tuple[str, int]]:
    text = (ROOT / "docs" / "api.md").read_text()
    table = text.split("| status | codes |", 1)[1].split("\n\n", 1)[0]
    pairs = set()
    for status, codes in re.findall(r"^\| (\d{3}) \| (.+) \|$", table, re.M):
        pairs |= {(code, int(status)) for code in re.findall(r"`([a-z_]+)`", codes)}
    rules_paragraph = text.split("Rules codes (400)", 1)[1].split("\n\n", 1)[0]
    pairs |= {(code, 400) for code in re.findall(r"`([a-z_]+)`", rules_paragraph)}
    return pairs


def test_the_api_error_table_lists_every_code_with_its_status():
    missing = raised_codes() - documented_codes()
    assert not missing, f"add to docs/api.md's error table: {sorted(missing)}"


def test_the_api_error_table_lists_no_code_that_cannot_happen():
    stale = documented_codes() - raised_codes()
    assert not stale, f"docs/api.md lists codes nothing answers with: {sorted(stale)}"


def test_the_check_finds_codes_in_the_sources():
    found = raised_codes()
    assert {("stale_version", 409), ("blocked", 403), ("bad_date", 400)} <= found


def test_the_protocol_error_table_lists_every_code_the_sockets_send():
    consumers = "".join(
        (ROOT / path).read_text() for path in ("games/consumers.py", "shanghaien/lib/sockets.py")
    )
    sent = set(re.findall(r'send_error\(\s*"([a-z_]+)"', consumers)) | {"rate_limited"}
    chat = {"bad_message", "bad_text", "too_long", "not_a_player", "blocked", "suspended"}
    command = {"bad_request", "not_found", "stale_version", "client_id_reused", "not_a_player"}
    protocol = (ROOT / "docs" / "protocol.md").read_text()
    table = protocol.split("| code | when |", 1)[1].split("\n\n", 1)[0]
    documented = set(re.findall(r"`([a-z_]+)`", table))
    missing = (sent | chat | command | set(rules.CODES)) - documented
    assert not missing, f"add to docs/protocol.md's error table: {sorted(missing)}"
