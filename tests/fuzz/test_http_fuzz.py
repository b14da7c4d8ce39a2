"""Generated and broken requests to every write endpoint, every form and hostile GETs.

Whatever arrives: never a 5xx; from the JSON API every refusal is
``{"error": {"code", "message"}}`` with a 4xx status (413 too large, 429 with Retry-After);
nothing that was refused changed a row; and every code met is in docs/api.md.
"""

from __future__ import annotations

import datetime as dt
import json
from collections import Counter

import pytest
from django.contrib import messages
from django.core.cache import cache
from django.utils import timezone
from hypothesis import given
from hypothesis import strategies as st

from accounts.holidays import do_declare_holiday
from accounts.models import ApiToken, Holiday, PushSubscription, hash_token
from games import rules
from games.models import Command, Invitation
from games.rules.shapes import COMMAND_TYPES
from games.services import commands, commitments
from shanghaien.lib.errors import ServiceError

from ..helpers.push_service import Device
from .account_forms import ACCOUNT_FORMS, plan_account_form
from .gets import GET_PAGES, get_path
from .hostile_forms import NAMES, form_post, form_values, mostly, path_part
from .requests import (
    DAYS,
    PAGE_STATUSES,
    STRANGERS,
    Request,
    World,
    api_request,
    headers_for,
    who_strategy,
)
from .snapshots import PLAUSIBLE, changes, snapshot
from .strategies import (
    chat_text,
    dumps,
    fuzz,
    hostile_text,
    mutated,
    pick,
    undocumented,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(players, clients, game):
    return World(players, clients, game)


# -- what each endpoint is sent ------------------------------------------------------------


def plan_commands(world: World, draw) -> Request:
    game = world.active_game()
    state = game.rules_state()
    seats = {s.seat: s.user.username for s in game.seats.select_related("user")}
    mover = seats[state.turn] if state.turn is not None else "anna"
    other = "bernd" if mover == "anna" else "anna"
    who = draw(
        st.sampled_from(
            [mover] * 10 + [f"{mover}-token"] * 3 + [other, f"{other}-token", "carl", *STRANGERS]
        )
    )
    # Everyone tries the mover's moves: the others are refused them (not_your_turn, …).
    legal = rules.legal_commands(state, state.turn if state.turn is not None else 0)
    calm = [c for c in legal if c["type"] not in ("resign", "abort")] or [{"type": "roll"}]
    command = pick(draw, calm) if draw(st.integers(0, 2)) else pick(draw, PLAUSIBLE)
    used = list(Command.objects.filter(game=game).values_list("client_id", flat=True)[:30])
    client_id = draw(
        st.sampled_from(
            ["fresh"] * 6 + ["used", "c", "a" * 64, "a" * 64 + "\n", "a" * 65, "x:y.z-_", ""]
        )
    )
    if client_id == "fresh":
        client_id = world.fresh_id()
    elif client_id == "used":  # the id of a command applied before: a retry, or a reuse
        client_id = pick(draw, used, "c")
    body = {
        "command": command,
        "expected_version": draw(
            st.sampled_from([game.version] * 8 + [game.version - 1, game.version + 1, 0])
        ),
        "client_id": client_id,
    }
    extra = [*COMMAND_TYPES, "left", "right", 0, 1, -1, game.version, *legal, *PLAUSIBLE]
    game_id = draw(path_part(world.game_ids()))
    return api_request(
        draw, world, who, f"/api/games/{game_id}/commands/", draw(mutated(body, extra))
    )


def plan_chat(world: World, draw) -> Request:
    who = draw(who_strategy("anna", "bernd", "anna-token", "bernd-token"))
    value = draw(mutated({"text": draw(chat_text)}, ["gg", "x" * 500, " "]))
    game_id = draw(path_part(world.game_ids()))
    return api_request(draw, world, who, f"/api/games/{game_id}/chat/", value)


# A private note: kept whole up to 2,000 characters, lines allowed; empty deletes it.
note_text = st.one_of(
    st.sampled_from(
        ["plan: tricks late", "", "   ", "x" * 2000, "x" * 2001, "two\nlines", "é" * 2001]
    ),
    chat_text,
)


def plan_note(world: World, draw) -> Request:
    """PUT a note (mostly; the other methods are refused 405), as its players, a watcher,
    strangers, with tokens and a browser's CSRF check."""
    who = draw(who_strategy("anna", "bernd", "anna-token", "bernd-token"))
    value = draw(mutated({"text": draw(note_text)}, ["gg", "x" * 2000, " ", None, 1]))
    game_id = draw(path_part(world.game_ids()))
    request = api_request(draw, world, who, f"/api/games/{game_id}/note/", value)
    request.method = draw(st.sampled_from(["PUT"] * 12 + ["POST", "GET", "DELETE", "PATCH"]))
    return request


# Players' seeds for the dice (docs/fairness.md): good ones, and ones just past a limit.
SEEDS = st.sampled_from(["", "a", "9f2c41d07ab8e6e1", " spaced ", "~" * 64, "x" * 65, "é", "\t"])


def commitment_for(world: World, draw, who: str, invitation_id=None):
    """The commitment a client sends with its seed: the one it was shown (the player's
    next, or the invitation's), one made up, a malformed one, or none (key left out)."""
    user = world.players.get(who.split("-")[0])
    if invitation_id is not None:
        found = str(invitation_id).isdigit() and Invitation.objects.filter(pk=invitation_id).first()
        shown = found.fair_commitment if found else None
    else:
        shown = commitments.shown(user).commitment if user else None
    choices = [shown, shown, shown, "0" * 64, "", None, 64, "A" * 64]
    return draw(st.one_of(st.sampled_from(choices), hostile_text))


def with_commitment(body: dict, value) -> dict:
    return body if value is None else {**body, "commitment": value}


# Values of an open invitation's limits: in bounds, at them, past them, of the wrong kind.
LIMITS = [None, 1, 14, 15, 0, -1, 100, 99, 1500, 3000, 3001, 2**63, 1.5, "1500", True, [], {}]


# A time bank's terms: good ones, a cap below the start or past 30 days, the wrong kinds.
BANK_HOURS = [24, 72, 0, 12, 168, 720, 721, 23, -24, 2**63, 72.0, "72", True, None, [], {}]
BANKS = [
    None,
    {"start_hours": 72, "increment_hours": 24, "cap_hours": 168},
    {"start_hours": 72, "increment_hours": 24},
    [72, 24, 168],
    "3 days",
]


def bank_terms(draw):
    """A bank: one of BANKS, or three hours drawn (mostly good ones)."""
    if draw(st.booleans()):
        return draw(st.sampled_from(BANKS))
    hours = st.sampled_from([72, 24, 168, *BANK_HOURS])
    keys = ("start_hours", "increment_hours", "cap_hours")
    return {key: draw(hours) for key in keys}


def plan_invite(world: World, draw) -> Request:
    who = draw(who_strategy("anna", "anna-token", "carl"))
    body = {
        "to": draw(st.sampled_from([*NAMES, None])),
        "extra_wild": draw(st.booleans()),
        "days_per_move": draw(st.sampled_from(DAYS)),
        "message": draw(st.one_of(st.sampled_from(["A game?", "", "x" * 300]), hostile_text)),
        "rated": draw(st.booleans()),
        "client_seed": draw(st.one_of(SEEDS, hostile_text)),
    }
    # an open invitation's limits: good ones, the bounds, past them, and the wrong kinds
    for key, good in (("min_rating", 1400), ("max_rating", 1600), ("max_pace", 2)):
        if draw(st.integers(0, 3)) == 0:  # one time in four: most invitations have none
            body[key] = draw(st.sampled_from([good, good, *LIMITS]))
    if draw(st.integers(0, 2)) == 0:  # a time bank instead of days per move
        body["bank"] = bank_terms(draw)
    body = with_commitment(body, commitment_for(world, draw, who))
    value = draw(mutated(body, [*NAMES, *DAYS, *LIMITS, True, False, None]))
    return api_request(draw, world, who, "/api/invitations/", value)


def prepare_answers(world: World) -> None:
    """Keep a few invitations open, from and to each player and to anyone."""
    anna, bernd, carl = (world.players[n] for n in ("anna", "bernd", "carl"))
    pairs = [(anna, bernd), (bernd, anna), (carl, anna), (anna, None), (bernd, carl), (bernd, None)]
    while (count := Invitation.objects.filter(status=Invitation.Status.OPEN).count()) < 4:
        sender, receiver = pairs[(Invitation.objects.count() + count) % len(pairs)]
        # an open invitation of bernd's is for players rated 1600 or more: refused to all
        limits = {"min_rating": 1600} if sender == bernd and receiver is None else {}
        Invitation.objects.create(from_user=sender, to_user=receiver, **limits)
        world.known = None


def plan_answer(world: World, draw) -> Request:
    prepare_answers(world)
    ids = list(Invitation.objects.order_by("-pk").values_list("pk", flat=True)[:8])
    who = draw(who_strategy("anna", "bernd", "carl", "bernd-token"))
    action = draw(st.sampled_from(["accept", "decline", "cancel"] * 4 + ["Accept", "frob", ""]))
    invitation = draw(path_part(ids))
    seeds = {"client_seed": draw(SEEDS)}
    seeds = with_commitment(seeds, commitment_for(world, draw, who, invitation))
    value = draw(mutated(seeds if action == "accept" else {}))
    return api_request(draw, world, who, f"/api/invitations/{invitation}/{action}/", value)


def plan_extend(world: World, draw) -> Request:
    if draw(st.integers(0, 3)) == 0:  # a move: a new turn, whose deadline may be extended
        game = world.active_game()
        state = game.rules_state()
        legal = [c for c in rules.legal_commands(state, state.turn) if c["type"] != "resign"]
        commands.do_command(
            game.pk,
            game.to_move,
            pick(draw, legal, {"type": "roll"}),
            game.version,
            world.fresh_id(),
        )
        world.known = None
    who = draw(who_strategy("anna", "bernd", "anna-token"))
    game_id = draw(path_part(world.game_ids()))
    return api_request(draw, world, who, f"/api/games/{game_id}/extend/", draw(mutated({})))


def plan_rematch(world: World, draw) -> Request:
    if draw(st.integers(0, 3)) == 0:  # the offer withdrawn, so that another can be made
        Invitation.objects.filter(status=Invitation.Status.OPEN).update(
            status=Invitation.Status.CANCELLED
        )
        world.known = None
    who = draw(who_strategy("anna", "bernd", "bernd-token"))
    ids = [world.finished.pk] * 5 + [world.active_game().pk]
    game_id = draw(path_part(ids))
    seeds = with_commitment({"client_seed": draw(SEEDS)}, commitment_for(world, draw, who))
    body = draw(mutated(seeds))
    return api_request(draw, world, who, f"/api/games/{game_id}/rematch/", body)


reasons = st.one_of(st.sampled_from(["Rude chat.", "x" * 1000, "x" * 1001]), hostile_text)


def plan_report(world: World, draw) -> Request:
    who = draw(who_strategy("anna", "bernd", "carl", "anna-token"))
    games, chat = world.game_ids(), world.message_ids()
    if draw(st.booleans()):
        body = {"game": pick(draw, games), "reason": draw(reasons)}
    else:
        body = {"message": pick(draw, chat), "reason": draw(reasons)}
    extra = [*games, *chat, *map(str, games), "Spam."]
    return api_request(draw, world, who, "/api/reports/", draw(mutated(body, extra)))


def plan_block(world: World, draw) -> Request:
    who = draw(who_strategy("anna", "bernd", "anna-token"))
    names = st.one_of(st.sampled_from(NAMES), hostile_text)
    value = draw(mutated({"username": draw(names)}, NAMES))
    return api_request(draw, world, who, "/api/blocks/", value)


def plan_unblock(world: World, draw) -> Request:
    who = draw(who_strategy("anna", "bernd", "anna-token"))
    name = draw(path_part(["bernd", "carl", "anna", "BERND", "nobody", "x" * 151, "é"]))
    return api_request(draw, world, who, f"/api/blocks/{name}/remove/", draw(mutated({})))


def plan_follow(world: World, draw) -> Request:
    who = draw(who_strategy("anna", "bernd", "anna-token"))
    names = st.one_of(st.sampled_from(NAMES), hostile_text)
    value = draw(mutated({"username": draw(names)}, NAMES))
    return api_request(draw, world, who, "/api/follows/", value)


def plan_unfollow(world: World, draw) -> Request:
    who = draw(who_strategy("anna", "bernd", "anna-token"))
    name = draw(path_part(["bernd", "carl", "anna", "BERND", "nobody", "x" * 151, "é"]))
    return api_request(draw, world, who, f"/api/follows/{name}/remove/", draw(mutated({})))


def iso_day(offset: int) -> str:
    return (timezone.now().date() + dt.timedelta(days=offset)).isoformat()


days = st.one_of(
    st.integers(-3, 400).map(iso_day),
    st.sampled_from(
        ["2026-02-30", "9999-12-31", "0001-01-01", "2026-1-1", "20261224", "2026-W01-1"]
    ),
    hostile_text,
)


def plan_holiday(world: World, draw) -> Request:
    who = draw(who_strategy("anna", "anna-token", "bernd"))
    start = draw(st.integers(-2, 370))
    body = {
        "start": draw(mostly(st.just(iso_day(start)), days)),
        "end": draw(mostly(st.just(iso_day(start + draw(st.integers(-1, 35)))), days)),
    }
    extra = [iso_day(1), iso_day(400), "2026-02-30", "9999-12-31", "20261224", 20261224]
    return api_request(draw, world, who, "/api/holidays/", draw(mutated(body, extra)))


def prepare_holidays(world: World) -> None:
    anna = world.players["anna"]
    offset = 20
    while Holiday.objects.filter(user=anna).count() < 2 and offset < 300:
        try:
            do_declare_holiday(anna, iso_day(offset), iso_day(offset))
            world.known = None
        except ServiceError:  # that day is taken or past the allowance: try another
            pass
        offset += 7


def plan_holiday_cancel(world: World, draw) -> Request:
    prepare_holidays(world)
    who = draw(who_strategy("anna", "anna-token", "bernd"))
    ids = list(Holiday.objects.values_list("pk", flat=True))
    holiday = draw(path_part(ids))
    return api_request(draw, world, who, f"/api/holidays/{holiday}/cancel/", draw(mutated({})))


def plan_bot_account(world: World, draw) -> Request:
    """Make the asking account a bot account: anna and bernd have played (409
    ``has_played``), their tokens lack the scope ``bot`` (403 ``insufficient_scope``),
    carl is fresh (upgraded once, then 409 ``already_bot_account``)."""
    who = draw(who_strategy("anna", "anna-token", "carl", "bernd-token"))
    return api_request(draw, world, who, "/api/account/bot/", draw(mutated({})))


# Two browsers' keys and endpoints, at push services and elsewhere.
DEVICES = [Device(), Device()]
ENDPOINTS_AT = [
    "https://fcm.googleapis.com/fcm/send/fuzz-1",
    "https://updates.push.services.mozilla.com/wpush/v2/fuzz-2",
    "https://fcm.googleapis.com.example/x",
    "http://127.0.0.1:9/push",
    "https://169.254.169.254/latest/meta-data/",
]


def plan_push_subscribe(world: World, draw) -> Request:
    who = draw(who_strategy("anna", "anna-token", "bernd"))
    device = pick(draw, DEVICES)
    body = device.subscription(draw(mostly(st.sampled_from(ENDPOINTS_AT[:2]), hostile_text)))
    extra = [*ENDPOINTS_AT, DEVICES[0].p256dh, DEVICES[1].p256dh, None]
    return api_request(draw, world, who, "/api/push/subscriptions/", draw(mutated(body, extra)))


def plan_push_remove(world: World, draw) -> Request:
    anna = world.players["anna"]
    if not PushSubscription.objects.filter(user=anna).exists():
        subscription = DEVICES[0].subscription(ENDPOINTS_AT[0])
        PushSubscription.objects.create(
            user=anna,
            endpoint=subscription["endpoint"],
            p256dh=subscription["keys"]["p256dh"],
            auth=subscription["keys"]["auth"],
            vapid_key="fuzz",
        )
        world.known = None
    who = draw(who_strategy("anna", "anna-token", "bernd"))
    ids = list(PushSubscription.objects.values_list("pk", flat=True))
    device = draw(path_part(ids))
    path = f"/api/push/subscriptions/{device}/remove/"
    return api_request(draw, world, who, path, draw(mutated({})))


# -- personal API tokens -----------------------------------------------------------------------

PASSWORD = "tavern-dice-42"  # the players' own (tests/conftest.py)
SCOPE_LISTS = st.sampled_from([["read"], ["read", "play"], ["play"], ["bot"], ["read", "read"]])
BAD_SCOPE_LISTS = st.sampled_from([[], ["admin"], "read", [None], ["READ"]])
EXPIRIES = st.sampled_from([None, 1, 7, 30, 365])
BAD_EXPIRIES = st.sampled_from([0, 366, -1, "7", 7.0, True])


def plan_token_create(world: World, draw) -> Request:
    """Make a token: a session (CSRF enforced or not), a token (refused), a stranger, or
    nobody with a name and password, right or wrong (staff: mia, with or without a code)."""
    who = draw(who_strategy("anna", "anonymous", "anna-csrf", "anna-token", "mia"))
    body = {
        "name": draw(mostly(st.sampled_from(["my bot", "x" * 60]), hostile_text)),
        "scopes": draw(mostly(SCOPE_LISTS, BAD_SCOPE_LISTS)),
        "expires_in_days": draw(mostly(EXPIRIES, BAD_EXPIRIES)),
    }
    if who in ("anonymous", "bad-token") or draw(st.integers(0, 5)) == 0:
        body["username"] = draw(st.sampled_from(["anna", "ANNA", "bernd", "mia", "nobody", ""]))
        body["password"] = draw(st.sampled_from([PASSWORD, PASSWORD, "wrong", "", "x" * 5000]))
        if draw(st.booleans()):
            body["code"] = draw(st.sampled_from(["000000", "123456", "", "x" * 65]))
    extra = ["read", "play", "bot", 1, 365, PASSWORD, "anna"]
    return api_request(draw, world, who, "/api/tokens/", draw(mutated(body, extra)))


def token_ids(world: World) -> list[int]:
    """Tokens to revoke: a few of anna's and bernd's besides the ones the world's own
    requests use (made again when a request revoked one of those)."""
    for name in ("anna", "bernd"):
        user = world.players[name]
        if not ApiToken.objects.filter(digest=hash_token(world.tokens[name])).exists():
            world.tokens[name] = ApiToken.issue(user, "fuzz")[1]
            world.known = None
        while ApiToken.objects.filter(user=user).count() < 3:
            ApiToken.issue(user, "spare")
            world.known = None
    return list(ApiToken.objects.values_list("pk", flat=True))


def plan_token_revoke(world: World, draw) -> Request:
    ids = token_ids(world)
    who = draw(who_strategy("anna", "anna-token", "bernd-token", "anna-csrf"))
    token = draw(path_part(ids))
    path = f"/api/tokens/{token}/revoke/"
    return api_request(draw, world, who, path, draw(mutated({})))


TOURNAMENT_FORMATS = ["round_robin", "groups_knockout", "knockout"]
TOURNAMENT_ACTIONS = ["join", "leave", "withdraw", "start", "cancel"]


def deadline_in(hours) -> str:
    return (timezone.now() + dt.timedelta(hours=hours)).isoformat()


def plan_tournament(world: World, draw) -> Request:
    who = draw(who_strategy("anna", "anna-token", "carl"))
    body = {
        "name": draw(st.one_of(st.sampled_from(["Cup", "", "x" * 80, "x" * 81]), hostile_text)),
        "format": draw(mostly(st.sampled_from(TOURNAMENT_FORMATS), hostile_text)),
        "signup_deadline": draw(
            st.sampled_from(
                [deadline_in(48)] * 4
                + [deadline_in(-1), deadline_in(24 * 40), "2030-01-01", "tomorrow", 1]
            )
        ),
    }
    for key, values in (
        ("days_per_move", [*DAYS, 4, "3"]),
        ("bank", [{"start_hours": 72, "increment_hours": 24, "cap_hours": 168}, {}, None, 3]),
        ("min_rating", LIMITS),
        ("max_rating", LIMITS),
        ("min_players", [2, 4, 1, 300, -1]),
        ("max_players", [4, 16, 1, 300]),
        ("group_size", [2, 4, 17, 0]),
        ("advance", [1, 2, 9, 0]),
        ("rated", [True, False, "yes"]),
        ("description", ["", "x" * 500, "x" * 501]),
    ):
        if draw(st.integers(0, 2)) == 0:
            body[key] = draw(st.sampled_from(values))
    value = draw(mutated(body, [*TOURNAMENT_FORMATS, *DAYS, *LIMITS, True, None]))
    return api_request(draw, world, who, "/api/tournaments/", value)


def plan_tournament_action(world: World, draw) -> Request:
    ids = world.tournament_ids()
    who = draw(who_strategy("anna", "bernd", "carl", "bernd-token"))
    action = draw(st.sampled_from(TOURNAMENT_ACTIONS * 3 + ["Join", "frob", ""]))
    tournament = draw(path_part(ids))
    value = draw(mutated({}))
    return api_request(draw, world, who, f"/api/tournaments/{tournament}/{action}/", value)


ENDPOINTS = {
    "tournament": plan_tournament,
    "tournament_action": plan_tournament_action,
    "chat": plan_chat,
    "note": plan_note,
    "invite": plan_invite,
    "answer_invitation": plan_answer,
    "extend": plan_extend,
    "rematch": plan_rematch,
    "report": plan_report,
    "block": plan_block,
    "unblock": plan_unblock,
    "follow": plan_follow,
    "unfollow": plan_unfollow,
    "holiday": plan_holiday,
    "cancel_holiday": plan_holiday_cancel,
    "account_bot": plan_bot_account,
    "push_subscribe": plan_push_subscribe,
    "push_remove": plan_push_remove,
    "token_create": plan_token_create,
    "token_revoke": plan_token_revoke,
}


# -- checks ----------------------------------------------------------------------------------


def api_answer(response, request: Request, codes: Counter) -> bool:
    """Check an API answer; True if the request was accepted."""
    status = response.status_code
    assert status < 500, f"{status} for {request}: {response.content[:500]!r}"
    assert response["Content-Type"].startswith("application/json"), (
        f"{status} {response['Content-Type']} for {request}: {response.content[:300]!r}"
    )
    body = json.loads(response.content)
    if status < 400:
        assert status in (200, 201), f"{status} for {request}"
        return True
    assert isinstance(body, dict) and list(body) == ["error"], f"{status} {body!r:.300}"
    error = body["error"]
    code, message = error.get("code"), error.get("message")
    assert isinstance(code, str) and code and isinstance(message, str) and message, error
    codes[code] += 1
    assert (status == 413) == (code == "too_large"), f"{status} {code} for {request}"
    if status == 429:
        assert code in ("rate_limited", "too_many_games")
        assert int(response["Retry-After"]) >= 1
        assert error["retry_after"] == int(response["Retry-After"])
    if code == "rate_limited":
        assert status == 429, f"rate_limited with {status} for {request}"
    return False


def exchange(world: World, request: Request, run, check) -> None:
    """Send ``request``; whatever it did not do must have left every row as it was."""
    before = world.known or snapshot()
    response = world.send(request)
    run.messages += 1
    accepted = check(response, request, run.codes)
    run.accepted += accepted
    world.known = None
    if not accepted or request.method in ("GET", "OPTIONS"):
        after = snapshot()
        assert after == before, (
            f"{request} was answered {response.status_code} {response.content[:300]!r} "
            f"and changed {changes(before, after)}"
        )
        world.known = after


def forget_limits_now_and_then(draw) -> None:
    """Mostly a clean slate, sometimes the counters of the examples before: both the
    checks behind a rate limit and the limit itself get their share."""
    if draw(st.integers(0, 3)):
        cache.clear()


# -- the tests -------------------------------------------------------------------------------


def fuzz_requests(world, run, plan, check, weight=1.0, doc="api.md") -> None:
    """Send ``plan``'s requests, one an example; then every code met must be documented."""

    @fuzz(weight)
    @given(data=st.data())
    def example(data):
        forget_limits_now_and_then(data.draw)
        exchange(world, plan(world, data.draw), run, check)
        run.examples += 1

    example()
    print(f"error codes met: {', '.join(f'{c} {n}' for c, n in sorted(run.codes.items()))}")
    missing = undocumented(run.codes, doc)
    assert not missing, f"error codes missing from docs/{doc}: {missing}"


def test_commands_api(world, fuzz_run):
    fuzz_requests(world, fuzz_run, plan_commands, api_answer, weight=2.5)


@pytest.mark.parametrize("endpoint", ENDPOINTS)
def test_write_endpoints(world, fuzz_run, endpoint):
    fuzz_requests(world, fuzz_run, ENDPOINTS[endpoint], api_answer)


# Forms answer with pages, not JSON: a redirect with a message, or a page.


def page_answer(response, request: Request, codes: Counter) -> bool:
    status = response.status_code
    assert status < 500, f"{status} for {request}: {response.content[:300]!r}"
    assert status in PAGE_STATUSES, f"{status} for {request}"
    if status == 429:
        assert int(response["Retry-After"]) >= 1
    if status >= 400:
        return False
    if status == 302 and response["Location"].startswith("/accounts/login/"):
        return False
    queued = getattr(response.wsgi_request, "_messages", None)
    said = list(getattr(queued, "_queued_messages", []))
    return not any(m.level >= messages.ERROR for m in said)


def plan_form(world: World, draw, form: str) -> Request:
    who = draw(st.sampled_from(["anna"] * 6 + ["bernd", "carl", "anonymous", "anna-csrf"]))
    if form == "invite":
        path = "/invitations/new/"
        fields = {
            "to": mostly(st.sampled_from(["bernd", "carl", "", *NAMES])),
            "extra_wild": st.sampled_from(["on", ""]),
            "days_per_move": mostly(st.sampled_from(DAYS).map(str)),
            "message": mostly(st.sampled_from(["A game?", "", "x" * 300, "x" * 301])),
            "rated": st.sampled_from(["on", ""]),
            "min_rating": st.sampled_from([""] * 6 + ["1400", "99", "3001", "1.5", "x", "1" * 40]),
            "max_rating": st.sampled_from([""] * 6 + ["1600", "1300", "-1", "\u0661"]),
            "max_pace": st.sampled_from([""] * 6 + ["2", "0", "15", " 3 "]),
            "clock": mostly(st.sampled_from(["days", "bank", "Bank", ""])),
            "bank_start": mostly(st.sampled_from(["72", "24", "336", "25", "72.0", "-1"])),
            "bank_increment": mostly(st.sampled_from(["24", "0", "48", "6", "true"])),
            "bank_cap": mostly(st.sampled_from(["168", "720", "48", "721", "\u0661"])),
        }
    elif form == "play":
        game = world.active_game()
        state = game.rules_state()
        seat = state.turn if state.turn is not None else 0
        legal = [c for c in rules.legal_commands(state, seat) if c["type"] != "resign"]
        command = draw(mutated(pick(draw, legal, {"type": "roll"})))
        path = f"/games/{draw(path_part(world.game_ids()))}/play/"
        mover = game.to_move.username if game.to_move else "anna"
        who = draw(st.sampled_from([mover] * 6 + ["carl", "anonymous", "anna-csrf"]))
        fields = {
            "command": mostly(st.just(dumps(command))),
            "expected_version": mostly(
                st.sampled_from([str(game.version)] * 3 + ["-1", "9" * 5000, "\u0661", " 3 "])
            ),
            "client_id": mostly(st.just(world.fresh_id())),
        }
    elif form == "tournament":
        path = "/tournaments/new/"
        soon = timezone.localtime() + dt.timedelta(days=2)
        fields = {
            "name": mostly(st.sampled_from(["Cup", "", "x" * 81])),
            "description": mostly(st.sampled_from(["", "x" * 501])),
            "format": mostly(st.sampled_from(TOURNAMENT_FORMATS + ["swiss"])),
            "extra_wild": st.sampled_from(["on", ""]),
            "rated": st.sampled_from(["on", ""]),
            "clock": mostly(st.sampled_from(["days", "bank", "both"])),
            "days_per_move": mostly(st.sampled_from(DAYS).map(str)),
            # the invitation form's bank fields (games.forms.ClockForm)
            "bank_start": st.sampled_from(["72", "", "0", "25", "72.0", "9" * 30]),
            "bank_increment": st.sampled_from(["24", "", "-1", "6", "true"]),
            "bank_cap": st.sampled_from(["168", "", "48", "721", "\u0661"]),
            "min_rating": st.sampled_from([""] * 4 + ["1400", "3001", "1.5", "\u0661"]),
            "max_rating": st.sampled_from([""] * 4 + ["1600", "1300", "-1"]),
            "min_players": mostly(st.sampled_from(["4", "2", "1", "300"])),
            "max_players": mostly(st.sampled_from(["16", "3", "257"])),
            "group_size": mostly(st.sampled_from(["4", "1", "17"])),
            "advance": mostly(st.sampled_from(["2", "0", "9"])),
            "signup_deadline": mostly(
                st.sampled_from(
                    [soon.strftime("%Y-%m-%dT%H:%M")] * 3 + ["2001-01-01T10:00", "soon", ""]
                )
            ),
        }
    elif form == "tournament_action":
        ids = world.tournament_ids()
        action = draw(st.sampled_from(TOURNAMENT_ACTIONS * 3 + ["frob"]))
        path = f"/tournaments/{draw(path_part(ids))}/{action}/"
        who = draw(st.sampled_from(["anna", "bernd", "carl", "anonymous", "anna-csrf"]))
        fields = {}
    elif form == "note":
        path = f"/games/{draw(path_part(world.game_ids()))}/note/"
        fields = {"text": mostly(note_text)}
    elif form == "computer":
        path = "/play/computer/"
        fields = {
            "level": mostly(st.sampled_from(["deckhand", "boatswain", "captain", "admiral", ""])),
            "extra_wild": st.sampled_from(["on", "", "x" * 300]),
        }
    elif form == "token":
        path = "/accounts/tokens/"
        fields = {"name": mostly(st.sampled_from(["bot", "x" * 60, "x" * 61]))}
    elif form == "holiday":
        path = "/accounts/holidays/"
        start = draw(st.integers(-2, 370))
        end = start + draw(st.integers(-1, 31))
        fields = {"start": mostly(st.just(iso_day(start))), "end": mostly(st.just(iso_day(end)))}
    elif form == "presence":
        path = "/accounts/presence/"
        fields = {"show_presence": mostly(st.sampled_from(["on", "", "off", "0", "x" * 300]))}
    elif form == "moderation":
        path = f"/moderation/reports/{draw(path_part(world.report_ids()))}/"
        who = draw(st.sampled_from(["mia"] * 10 + ["anna", "anonymous"]))
        fields = {
            "handling": mostly(
                st.sampled_from(["hide", "warn", "suspend", "unfounded"] * 3 + [""])
            ),
            "reason": st.one_of(
                st.sampled_from(["insults"] * 6 + ["x" * 1000, "x" * 1001, " ", ""]), form_values
            ),
            "days": st.sampled_from(["7", "1", "30", "forever", "0", "-1", "2", ""]),
            "page": mostly(st.sampled_from(["1", "2", "0", "9" * 30, "\u0661"])),
        }
    elif form == "dismiss":
        from accounts.notices import give_notice

        notice = give_notice(world.players["anna"], "s", "b")
        world.known = None  # a row more than the last snapshot
        path = f"/notices/{draw(path_part([notice.pk]))}/dismiss/"
        fields = {"next": mostly(st.sampled_from(["/", "/ranking/", "//evil.example/", ""]))}
    elif form in ACCOUNT_FORMS:
        path, fields = plan_account_form(draw, form)
    else:
        path = "/accounts/preferences/"
        fields = {
            "language": mostly(st.sampled_from(["", "de", "fr", "it", "en", "xx"])),
            "time_zone": mostly(st.sampled_from(["UTC", "Europe/Berlin", "Mars/Base", ""])),
            "email_on_turn": st.sampled_from(["on", ""]),
            "email_invitations": st.sampled_from(["on", ""]),
            "daily_digest": st.sampled_from(["on", ""]),
            "email_reminders": st.sampled_from(["on", ""]),
        }
    body, content_type = draw(form_post(fields))
    method = draw(st.sampled_from(["POST"] * 8 + ["GET", "PUT"]))
    headers = headers_for(draw, world, who)
    return Request(who, path, body, method, content_type, headers)


FORMS = [
    "tournament",
    "tournament_action",
    "invite",
    "play",
    "note",
    "computer",
    "token",
    "holiday",
    "presence",
    "preferences",
    "moderation",
    "dismiss",
    *ACCOUNT_FORMS,
]


@pytest.mark.parametrize("form", FORMS)
def test_form_views(world, fuzz_run, form):
    def plan(world, draw):
        return plan_form(world, draw, form)

    fuzz_requests(world, fuzz_run, plan, page_answer, weight=0.6)


# Hostile GETs: read-only, whatever the path or the query holds.


def plan_get(world: World, draw, page: str) -> Request:
    who = draw(st.sampled_from(["anna", "carl", "anna-token", "anonymous", "bad-token"]))
    if page.startswith("tournament"):
        world.tournament_ids()  # tournaments to show: open and running
    if page == "moderation":
        world.report_ids()  # a page with a report on it
        who = draw(st.sampled_from(["mia"] * 6 + ["anna", "anonymous"]))
    path = get_path(draw, page, world.game_ids(), world.finished.pk)
    return Request(who, path, method="GET", headers=headers_for(draw, world, who))


def get_answer(response, request: Request, codes: Counter) -> bool:
    if request.path.startswith("/api/"):
        return api_answer(response, request, codes)
    return page_answer(response, request, codes)


@pytest.mark.parametrize("page", GET_PAGES)
def test_hostile_gets(world, fuzz_run, page):
    def plan(world, draw):
        return plan_get(world, draw, page)

    fuzz_requests(world, fuzz_run, plan, get_answer, weight=0.5)
