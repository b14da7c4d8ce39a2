"""Hostile requests to the two streams, through the site's ASGI application as Daphne
serves them: any game id, any ``since``, any Authorization header, a cookie or nothing.

Whatever arrives: never a 5xx; a refusal is ``{"error": {"code", "message"}}`` with a
documented code; an answer that streams begins with a JSON line and, once the client
goes away, leaves no place taken; and a stream changes no row (a token's last use
aside)."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from asgiref.sync import async_to_sync
from django.core.cache import cache
from django.utils import timezone
from hypothesis import given
from hypothesis import strategies as st

from accounts.models import ApiToken
from games.models import Command, Event, Game, Invitation
from shanghaien.lib.sockets import SocketSlots

from ..streams.conftest import StreamClient
from .strategies import fuzz, hostile_text, undocumented

pytestmark = pytest.mark.django_db(transaction=True)


def held(user) -> int:
    return len(cache.get_many(SocketSlots.keys(user.pk)))


def rows() -> tuple:
    return (
        Game.objects.count(),
        Event.objects.count(),
        Command.objects.count(),
        Invitation.objects.count(),
        list(Game.objects.order_by("pk").values_list("version", "status")),
    )


@pytest.fixture
def tokens(players):
    return {name: ApiToken.issue(user, "stream")[1] for name, user in players.items()}


@pytest.fixture
def credentials(players, tokens):
    """Every kind of Authorization a stranger might send, by name."""
    now = timezone.now()
    _t, expired = ApiToken.issue(players["anna"], "old", expires_at=now - dt.timedelta(hours=1))
    _t, bot_only = ApiToken.issue(players["anna"], "bot", scopes=("bot",))
    _t, read = ApiToken.issue(players["carl"], "read", scopes=("read",))
    revoked_token, revoked = ApiToken.issue(players["bernd"], "gone")
    revoked_token.delete()
    return {
        "anna": f"Bearer {tokens['anna']}",
        "bernd": f"Bearer {tokens['bernd']}",
        "carl-read": f"Bearer {read}",
        "expired": f"Bearer {expired}",
        "bot-only": f"Bearer {bot_only}",
        "revoked": f"Bearer {revoked}",
        "not-bearer": f"Basic {tokens['anna']}",
        "empty": "Bearer ",
        "garbage": "Bearer shg_" + "x" * 43,
        "none": None,
    }


def header_value(draw, credentials) -> str | None:
    named = draw(st.sampled_from(sorted(credentials)))
    value = credentials[named]
    if draw(st.integers(0, 5)) == 0:  # a header of any text
        return "Bearer " + draw(hostile_text)
    return value


def ids(game) -> st.SearchStrategy:
    return st.one_of(
        st.sampled_from([str(game.pk)] * 4 + ["0", "-1", "99999999", "1e3", "x", "%00", ""]),
        st.integers(-(2**70), 2**70).map(str),
    )


SINCE = st.one_of(
    st.none(),
    st.integers(-5, 60).map(str),
    st.sampled_from(["", "-1", "1.5", "abc", "9" * 40, "NaN", "0x10", " 3", "3&since=4"]),
    hostile_text,
)


def open_and_leave(path: str, query: str, header: str | None) -> tuple[int, bytes, list]:
    """Open the stream, read its first line (or the whole refusal), go away."""

    async def run():
        client = StreamClient(path, query=query)
        headers = client.communicator.scope["headers"]
        if header is not None:
            headers.append((b"authorization", header.encode("utf-8", "surrogatepass")))
        status = await client.open()
        if status != 200:
            body = await client.body()
            await client.communicator.wait(10)  # the handler ends: its connection goes back
            return status, body, []
        first = await client.raw_line()
        await client.disconnect()
        return status, first, [client.headers]

    return async_to_sync(run)()


def test_hostile_stream_requests(players, game, credentials):
    codes: set[str] = set()
    before = rows()

    @fuzz(2)
    @given(data=st.data())
    def example(data):
        header = header_value(data.draw, credentials)
        if data.draw(st.booleans()):
            path = "/api/stream/"
        else:
            path = f"/api/games/{data.draw(ids(game))}/stream/"
        since = data.draw(SINCE)
        query = "" if since is None else "since=" + since.replace("&", "%26")
        try:
            status, body, _headers = open_and_leave(path, query, header)
        except UnicodeEncodeError:
            return  # no HTTP client can send that header
        assert status < 500, (path, query, header, body[:300])
        if status == 200:  # its first line: something to tell, or a keep-alive at once
            assert body == b"" or json.loads(body)["type"] in ("state", "game_start"), body
        else:
            error = json.loads(body)["error"]
            assert error["code"] and error["message"], error
            codes.add(error["code"])
        for user in players.values():
            assert held(user) == 0, "a stream left its place taken"

    example()
    assert rows() == before
    assert {"bad_token", "not_found"} <= codes, codes
    missing = undocumented(codes, "api.md")
    assert not missing, f"error codes missing from docs/api.md: {missing}"
