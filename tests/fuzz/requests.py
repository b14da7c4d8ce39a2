"""Who sends the fuzzed HTTP requests and how: the players, tokens and strangers, the
world of rows they act on, and a request's shape (method, content type, body, headers)."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.core.cache import cache
from django.test import Client
from hypothesis import strategies as st

from accounts.tokens import do_issue_token
from games.models import ChatMessage, Game
from games.services import chat
from moderation.models import Report

from ..helpers.accounts import log_in_with_second_factor
from .hostile_forms import BOUNDARY
from .snapshots import finished_game, new_game
from .strategies import http_body

# Who sends a request: a name of tests/conftest.py's players, or one of these.
USER_OF = {
    "anna": "anna",
    "bernd": "bernd",
    "carl": "carl",
    "anna-token": "anna",
    "bernd-token": "bernd",
    "anna-csrf": "anna",  # a browser session whose CSRF check is enforced
    "mia": "mia",  # a moderator with her second factor (the moderators' console)
}
STRANGERS = ["anonymous", "bad-token", "anna-csrf"]
BAD_AUTHORIZATION = [
    "",
    "Bearer",
    "Bearer ",
    "Bearer \t ",
    "Basic YWxhZGRpbjpvcGVuc2VzYW1l",
    "Token shg_abc",
    "Bearer shg_" + "0" * 43,
    "Bearer " + "x" * 5000,
    "Bearer \x00",
    "Bearer shg_\x7f",
    "bearer shg_nope",
    "Bearer shg_a shg_b",
]
METHODS = ["POST"] * 25 + ["GET", "PUT", "PATCH", "DELETE", "OPTIONS"]
CONTENT_TYPES = ["application/json"] * 12 + [
    "text/plain",
    "application/x-www-form-urlencoded",
    "application/x-www-form-urlencoded; charset=latin-1",
    f"multipart/form-data; boundary={BOUNDARY}",
    "multipart/form-data",
    "application/json; charset=latin-1",
    "",
]
DAYS = [1, 2, 3, 5, 7, 14]
PAGE_STATUSES = {200, 302, 400, 403, 404, 405, 413, 429}


@dataclass
class Request:
    who: str
    path: str
    body: bytes = b""
    method: str = "POST"
    content_type: str = "application/json"
    headers: dict = field(default_factory=dict)

    def __str__(self):
        return (
            f"{self.method} {self.path[:200]} as {self.who} ({self.content_type}, "
            f"{self.headers!r:.200}): {self.body[:400]!r}"
        )


class World:
    """The players' clients and what the requests act on, kept valid between examples."""

    def __init__(self, players, clients, game):
        self.players = players
        self.clients = {**clients, "anonymous": Client()}
        csrf = Client(enforce_csrf_checks=True)
        csrf.force_login(players["anna"])
        csrf.get("/")  # the lobby's form sets the CSRF cookie
        self.csrf_token = csrf.cookies["csrftoken"].value
        self.clients["anna-csrf"] = csrf
        self.tokens = {name: do_issue_token(players[name], "fuzz")[1] for name in ("anna", "bernd")}
        self.game = game
        self.finished = finished_game(players["anna"], players["bernd"])
        for name, text in (("anna", "Ahoy"), ("bernd", "Good luck")):
            chat.do_chat(game.pk, players[name], text)
        self.moderator = moderator_with_second_factor()
        self.clients["mia"] = Client()
        log_in_with_second_factor(self.clients["mia"], self.moderator)
        cache.clear()
        self.known = None  # the rows as they are now, while no request has changed them
        self.ids = 0

    def fresh_id(self) -> str:
        self.ids += 1
        return f"fuzz-{self.ids}"

    def user(self, who):
        if who == "mia":
            return self.moderator
        return self.players.get(USER_OF.get(who, ""))

    def report_ids(self) -> list[int]:
        """Reports for the console's forms: open ones (one made when none is left), and
        closed ones."""
        if not Report.objects.filter(status=Report.Status.OPEN).exists():
            message = ChatMessage.objects.create(
                game=self.game, user=self.players["anna"], text="x"
            )
            Report.objects.create(reporter=self.players["bernd"], message=message, reason="r")
            Report.objects.create(reporter=self.players["bernd"], game=self.game, reason="r")
            self.known = None  # rows more than the last snapshot
        return list(Report.objects.order_by("-status", "-pk").values_list("pk", flat=True)[:6])

    def active_game(self) -> Game:
        self.game.refresh_from_db()
        if self.game.status != Game.Status.ACTIVE:
            self.game = new_game(self.players["anna"], self.players["bernd"])
            self.known = None
        return self.game

    def tournament_ids(self) -> list[int]:
        """A few tournaments to act on: bernd's open for sign-up (carl signed up), and
        one running of anna, bernd and carl; made once, the rest left as the requests
        made them."""
        from tournaments.models import Tournament

        ids = list(Tournament.objects.order_by("pk").values_list("pk", flat=True)[:6])
        if len(ids) >= 2:
            return ids
        import datetime as dt

        from django.utils import timezone

        from tournaments.services import entries, stages

        anna, bernd, carl = (self.players[n] for n in ("anna", "bernd", "carl"))
        soon = timezone.now() + dt.timedelta(days=2)
        open_ = entries.do_create(bernd, name="Open", format="knockout", signup_deadline=soon)
        entries.do_join(open_.pk, carl)
        running = entries.do_create(
            bernd,
            name="Running",
            format="round_robin",
            signup_deadline=soon,
            min_players=3,
            max_players=6,
        )
        for player in (anna, bernd, carl):
            entries.do_join(running.pk, player)
        stages.do_start(running.pk, user=bernd)
        self.known = None
        return [open_.pk, running.pk]

    def game_ids(self) -> list[int]:
        return [self.active_game().pk] * 6 + [self.finished.pk]

    def message_ids(self) -> list[int]:
        return list(ChatMessage.objects.values_list("pk", flat=True)[:20])

    def send(self, request: Request):
        client = self.clients.get(request.who, self.clients["anonymous"])
        extra = dict(request.headers)
        if request.who in ("anna-token", "bernd-token"):
            extra["HTTP_AUTHORIZATION"] = f"Bearer {self.tokens[USER_OF[request.who]]}"
        return client.generic(
            request.method,
            request.path,
            request.body,
            content_type=request.content_type,
            **extra,
        )


def moderator_with_second_factor():
    from django.contrib.auth.models import Group

    from accounts.models import User
    from moderation.roles import MODERATORS

    mia = User.objects.create_user("mia", password="x", is_staff=True)
    mia.groups.add(Group.objects.get(name=MODERATORS))
    return User.objects.get(pk=mia.pk)


def who_strategy(*preferred: str) -> st.SearchStrategy[str]:
    names = [*preferred, *preferred, *preferred, "carl", "bernd", *STRANGERS]
    return st.sampled_from(names)


def headers_for(draw, world: World, who: str) -> dict:
    if who == "bad-token":
        return {"HTTP_AUTHORIZATION": draw(st.sampled_from(BAD_AUTHORIZATION))}
    if who == "anna-csrf":
        token = draw(st.sampled_from([world.csrf_token] * 4 + ["", "x" * 64, "\x00" * 32, None]))
        headers = {} if token is None else {"HTTP_X_CSRFTOKEN": token}
        if draw(st.integers(0, 5)) == 0:
            headers["HTTP_ORIGIN"] = draw(
                st.sampled_from(["http://evil.example", "null", "http://testserver", "\x00"])
            )
        return headers
    return {}


def api_request(draw, world, who, path, value) -> Request:
    return Request(
        who=who,
        path=path,
        body=draw(http_body(value)),
        method=draw(st.sampled_from(METHODS)),
        content_type=draw(st.sampled_from(CONTENT_TYPES)),
        headers=headers_for(draw, world, who),
    )
