"""Presence (accounts.online): online while a socket holds one of the account's places in
the shared cache, lapsing with the place's lease; last seen; the privacy setting; the
renewal's round trips."""

import time
from datetime import timedelta

import pytest
from django.core.cache import cache, caches
from django.template import Context, Template
from django.utils import timezone, translation

from accounts import online
from accounts.models import User
from accounts.online import HIDDEN, Presence, presence_of, presence_words
from shanghaien.lib import sockets as socket_lib
from shanghaien.lib.sockets import SocketSlots

pytestmark = pytest.mark.django_db


class Calls:
    """Counts the calls of the cache's methods that are one round trip each to Redis (the
    in-memory cache makes its many from its ones: those are not counted)."""

    def __init__(self, monkeypatch, names=("get_many", "set_many", "touch", "add", "delete")):
        self.counts = dict.fromkeys(names, 0)
        target = caches["default"]  # this thread's, which ``cache`` stands for
        for name in names:
            real = getattr(target, name)

            def counting(*args, _name=name, _real=real, **kwargs):
                self.counts[_name] += 1
                return _real(*args, **kwargs)

            monkeypatch.setattr(target, name, counting)

    def made(self):
        return {name: n for name, n in self.counts.items() if n}


def fresh(*users):
    return [User.objects.get(pk=user.pk) for user in users]


def test_a_player_with_a_socket_is_online_and_then_not(players):
    anna, bernd = players["anna"], players["bernd"]
    slots = SocketSlots()
    place = slots.take(anna.pk)
    seen = presence_of(bernd, [anna, bernd])
    assert seen[anna.pk].online and not seen[bernd.pk].online
    slots.give_back(place)
    assert not presence_of(bernd, [anna])[anna.pk].online


def test_any_place_held_counts_not_only_the_first(players, settings):
    anna, bernd = players["anna"], players["bernd"]
    slots = SocketSlots()
    first, second = slots.take(anna.pk), slots.take(anna.pk)
    slots.give_back(first)  # the second socket, at place 1, is still open
    assert second.endswith(":1") and presence_of(bernd, [anna])[anna.pk].online
    last = [slots.take(anna.pk) for _ in range(settings.SOCKETS_PER_ACCOUNT - 1)][-1]
    for key in list(slots.held):
        if key != last:
            slots.give_back(key)
    assert last.endswith(f":{settings.SOCKETS_PER_ACCOUNT - 1}")
    assert presence_of(bernd, [anna])[anna.pk].online


def test_a_hidden_player_shows_nothing_to_others_and_all_to_themselves(players, client):
    anna, bernd = players["anna"], players["bernd"]
    SocketSlots().take(anna.pk)
    online.seen([anna.pk])
    online.do_show_presence(anna, False)
    anna, bernd = fresh(anna, bernd)
    assert presence_of(bernd, [anna])[anna.pk] == HIDDEN == Presence(False, None)
    from django.contrib.auth.models import AnonymousUser

    assert presence_of(AnonymousUser(), [anna])[anna.pk] == HIDDEN
    mine = presence_of(anna, [anna])[anna.pk]
    assert mine.online and mine.last_seen is not None
    online.do_show_presence(anna, True)
    assert presence_of(bernd, fresh(anna))[anna.pk].online


def test_a_computer_opponent_shows_no_presence(players):
    bot = User.objects.create_user("bot-captain", bot_level="captain")
    SocketSlots().take(bot.pk)  # never so, but even then
    online.seen([bot.pk])
    assert presence_of(players["anna"], fresh(bot))[bot.pk] == HIDDEN


def test_presence_of_many_players_is_one_round_trip_and_no_query(
    players, monkeypatch, django_assert_num_queries
):
    users = list(User.objects.all())
    SocketSlots().take(players["carl"].pk)
    calls = Calls(monkeypatch)
    with django_assert_num_queries(0):
        seen = presence_of(players["anna"], users)
    assert calls.made() == {"get_many": 1}
    assert [pk for pk, p in seen.items() if p.online] == [players["carl"].pk]


def test_a_place_not_renewed_lapses_with_its_lease(players, monkeypatch):
    """A killed process renews nothing: its places, and its players' presence, end with
    the lease (the cache's own clock: Redis' with REDIS_URL)."""
    monkeypatch.setattr(socket_lib, "SLOT_LEASE_SECONDS", 1)
    anna, bernd = players["anna"], players["bernd"]
    SocketSlots().take(anna.pk)  # and then its process dies
    assert presence_of(bernd, [anna])[anna.pk].online
    time.sleep(1.2)
    assert not presence_of(bernd, [anna])[anna.pk].online


def test_the_production_lease_lapses_within_a_minute():
    from django.conf import settings

    assert settings.SOCKET_LEASE_SECONDS <= 60
    assert socket_lib.SLOT_RENEW_SECONDS * 3 <= socket_lib.SLOT_LEASE_SECONDS


def test_renewing_all_of_a_processs_places_takes_two_round_trips(players, monkeypatch):
    monkeypatch.setattr(socket_lib, "SLOT_LEASE_SECONDS", 2)
    monkeypatch.setattr(socket_lib, "SLOT_MARGIN_SECONDS", 0.5)
    slots = SocketSlots()
    for user in players.values():
        for _ in range(5):
            slots.take(user.pk)
    calls = Calls(monkeypatch)
    time.sleep(1)
    assert slots.renew() == {user.pk for user in players.values()}
    assert calls.made() == {"get_many": 1, "set_many": 1}
    time.sleep(1.2)  # past the first lease: renewed, they still hold
    assert presence_of(players["anna"], players.values())[players["bernd"].pk].online
    assert all(cache.get(key) == token for key, token in slots.held.items())


def test_a_place_near_the_end_of_its_lease_is_not_overwritten(players, monkeypatch):
    """A place read as ours with its lease nearly out may lapse and go to another socket
    before a write: it is renewed with touch, which writes no token, and one gone is
    added back only where free; another socket's place stays that socket's."""
    anna = players["anna"]
    slots = SocketSlots()
    near, gone, lost = slots.take(anna.pk), slots.take(anna.pk), slots.take(anna.pk)
    for key in slots.written:
        slots.written[key] -= socket_lib.SLOT_LEASE_SECONDS  # this process stalled
    cache.delete(gone)  # lapsed, free
    cache.delete(lost)
    cache.set(lost, "another socket's")  # lapsed, and taken by another socket
    calls = Calls(monkeypatch)
    slots.renew()
    assert calls.made() == {"get_many": 1, "touch": 1, "add": 1}
    assert cache.get(near) == slots.held[near] and cache.get(gone) == slots.held[gone]
    assert cache.get(lost) == "another socket's"
    assert slots.written[near] > time.monotonic() - 5  # fresh again: the fast way next time
    calls = Calls(monkeypatch)
    slots.renew()
    assert calls.made() == {"get_many": 1, "set_many": 1}


def test_the_renewal_beat_marks_the_processs_players_seen_in_one_statement(
    players, django_assert_num_queries
):
    long_ago = timezone.now() - timedelta(days=3)
    User.objects.update(last_seen_at=long_ago)
    slots = SocketSlots()
    slots.take(players["anna"].pk)
    slots.take(players["anna"].pk)
    slots.take(players["bernd"].pk)
    accounts = slots.renew()
    with django_assert_num_queries(1):
        online.seen(accounts)
    seen = dict(User.objects.values_list("username", "last_seen_at"))
    assert seen["anna"] > long_ago and seen["bernd"] > long_ago and seen["carl"] == long_ago


def test_logging_in_marks_the_player_seen(players, client):
    client.login(username="anna", password="tavern-dice-42")
    assert fresh(players["anna"])[0].last_seen_at is not None
    assert fresh(players["bernd"])[0].last_seen_at is None


@pytest.mark.parametrize(
    ("ago", "words"),
    [
        (timedelta(seconds=20), "Last seen just now"),
        (timedelta(minutes=1, seconds=5), "Last seen 1 minute ago"),
        (timedelta(minutes=59), "Last seen 59 minutes ago"),
        (timedelta(hours=3, minutes=20), "Last seen 3 hours ago"),
        (timedelta(days=1, hours=2), "Last seen 1 day ago"),
        (timedelta(days=29), "Last seen 29 days ago"),
    ],
)
def test_last_seen_in_words(ago, words):
    now = timezone.now()
    with translation.override("en"):
        assert presence_words(Presence(False, now - ago), now) == words


def test_the_words_of_online_of_long_ago_and_of_nothing():
    now = timezone.now()
    with translation.override("en"):
        assert presence_words(Presence(True, now)) == "Online now"
        assert presence_words(Presence(False, now - timedelta(days=400)), now).startswith(
            "Last seen on "
        )
    assert presence_words(HIDDEN) == presence_words(None) == ""
    with translation.override("de"):
        assert presence_words(Presence(True, now)) != "Online now"
        german = presence_words(Presence(False, now - timedelta(hours=3)), now)
        assert "3" in german and "Last seen" not in german


def test_the_template_tag():
    page = Template("{% load presence_marks %}[{% presence_line p %}]")
    with translation.override("en"):
        html = page.render(Context({"p": Presence(True, None)}))
        assert 'class="presence online"' in html and "Online now" in html
        assert page.render(Context({"p": HIDDEN})).strip() == "[]"
        recent = Presence(False, timezone.now() - timedelta(hours=3))
        assert "Last seen 3 hours ago" in page.render(Context({"p": recent}))


def test_the_settings_choice_hides_and_shows_presence(players, client):
    client.force_login(players["anna"])
    page = client.get("/settings/")
    assert b'name="show_presence"' in page.content and b"checked" in page.content
    answer = client.post("/accounts/presence/", {})  # the box unticked sends nothing
    assert answer.status_code == 302 and answer["Location"].endswith("/settings/#presence")
    assert not fresh(players["anna"])[0].show_presence
    client.post("/accounts/presence/", {"show_presence": "on"})
    assert fresh(players["anna"])[0].show_presence
    assert client.get("/accounts/presence/").status_code == 405


def test_the_profile_shows_presence_unless_hidden(players, client):
    anna = players["anna"]
    SocketSlots().take(anna.pk)
    client.force_login(players["bernd"])
    with translation.override("en"):
        assert "Online now" in client.get("/users/anna/", HTTP_ACCEPT_LANGUAGE="en").text
        online.do_show_presence(anna, False)
        assert "Online now" not in client.get("/users/anna/", HTTP_ACCEPT_LANGUAGE="en").text
        client.force_login(anna)
        assert "Online now" in client.get("/users/anna/", HTTP_ACCEPT_LANGUAGE="en").text


def test_the_board_says_here_online_seen_or_nothing(players, game):
    from games.services import presence as seats

    anna, bernd = players["anna"], players["bernd"]
    with translation.override("en"):
        assert seats.board_presence(game.pk, anna, bernd.pk) == {"state": "none", "text": ""}
        place = SocketSlots()
        key = place.take(bernd.pk)
        assert seats.board_presence(game.pk, anna, bernd.pk)["state"] == "online"
        seats.socket_opened(game.pk, bernd)
        assert seats.board_presence(game.pk, anna, bernd.pk) == {
            "state": "here",
            "text": "Here, at this game",
        }
        online.do_show_presence(bernd, False)
        assert seats.board_presence(game.pk, anna, bernd.pk)["state"] == "none"
        online.do_show_presence(bernd, True)
        place.give_back(key)  # the game's seat still counts a socket: a dead server's
        online.seen([bernd.pk])
        assert seats.board_presence(game.pk, anna, bernd.pk) == {
            "state": "seen",
            "text": "Last seen just now",
        }
