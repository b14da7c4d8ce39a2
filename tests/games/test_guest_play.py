"""Guests: a visitor plays the computer without signing up (accounts.guest_accounts).

The home page shows a real board and the button; the button makes a guest (throttled per
address) and starts a casual game against the computer. A guest cannot chat, invite,
accept a person's game, report or make API tokens, on every path (form, JSON API,
socket, rematch); it plays one game at a time; signing up keeps its games."""

import json
import re
import uuid
from datetime import timedelta

import pytest
from allauth.account.models import EmailAddress
from channels.db import database_sync_to_async
from django.contrib.auth import get_user_model
from django.core import mail
from django.test import Client

from accounts import guest_accounts
from accounts.tokens import do_issue_token
from games import queries
from games.models import Game, Invitation
from games.services import chat, commands, invitations
from moderation.services import do_report
from ratings.models import PlayerRating, RatingChange
from shanghaien.lib.errors import Forbidden, RateLimited

from ..helpers.communicators import communicator, session_cookie
from ..helpers.games import assert_no_secrets, post, the_bots
from ..realtime.protocol import check

User = get_user_model()
HOUR = timedelta(hours=1)
pytestmark = pytest.mark.django_db


def play_now(client, level="deckhand", address="203.0.113.7"):
    return client.post("/play/now/", {"level": level}, REMOTE_ADDR=address)


@pytest.fixture
def guest_client():
    client = Client()
    response = play_now(client)
    assert response.status_code == 302, response.content[:300]
    return client


def guest_of(client) -> User:
    return User.objects.get(pk=client.session["_auth_user_id"])


def game_of(user) -> Game:
    return Game.objects.filter(seats__user=user).latest("pk")


def resign(user, game) -> None:
    game.refresh_from_db()
    commands.do_command(game.pk, user, {"type": "resign"}, game.version, uuid.uuid4().hex)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED


# -- the home page -------------------------------------------------------------------------


def test_the_home_page_shows_a_position_played_by_the_engine_and_the_button(client):
    response = client.get("/")
    body = response.content.decode()
    assert 'action="/play/now/"' in body and "Play the computer now" in body
    assert 'href="/accounts/signup/"' in body and 'href="/accounts/login/"' in body
    data = json.loads(re.search(r'id="home-board-data"[^>]*>(.*?)</script>', body, re.S)[1])
    view = data["view"]
    assert view["round"] >= 3 and view["turn"] == "me" and view["phase"] == "placement"
    assert {c["type"] for c in view["legal"]} >= {"place"}
    placed = [sum(s["my_dice"]) + sum(s["opponent_dice"]) for s in view["tavern"]]
    assert sum(placed) >= 4
    assert_no_secrets(data)  # a player's view: never the deck order
    # without script, the caption tells what the picture shows
    first, second = view["roll"]["dice"]
    assert f"you have rolled {first} and {second}" in body
    assert 'id="words"' in body  # the board's words, for a visitor too


# -- making a guest ----------------------------------------------------------------------------


def test_the_button_makes_a_guest_and_starts_a_casual_game_against_the_computer(client):
    response = play_now(client, "boatswain")
    guest = guest_of(client)
    game = game_of(guest)
    assert response["Location"] == f"/games/{game.pk}/"
    assert guest.is_guest and re.fullmatch(r"Guest-[2-9A-HJ-NP-Z]{6}", guest.username)
    assert not guest.has_usable_password() and guest.email == ""
    assert game.rated is False and game.status == Game.Status.ACTIVE
    opponent = game.seats.exclude(user=guest).get().user
    assert opponent.bot_level == "boatswain"
    page = client.get(f"/games/{game.pk}/")
    assert page.status_code == 200
    assert "Sign up to keep your games" in page.content.decode()
    assert 'data-push-key=""' in page.content.decode()  # no offer of notifications
    # the game JSON tells the board its viewer is a guest (no report button is drawn)
    assert page.context["game"]["guest"] is True


def test_a_bad_level_is_refused_with_a_message_and_makes_no_guest(client):
    response = play_now(client, "commodore")
    assert response.status_code == 302 and response["Location"] == "/"
    assert not User.objects.filter(guest_until__isnull=False).exists()
    assert "Choose an opponent" in client.get("/").content.decode()


def test_a_player_signed_up_is_sent_to_the_lobby(clients, players):
    response = play_now(clients["anna"])
    assert response["Location"] == "/"
    assert not Game.objects.exists()


def test_guests_are_made_at_most_five_an_hour_from_one_address():
    for _ in range(guest_accounts.GUESTS_PER_ADDRESS.count):
        assert play_now(Client()).status_code == 302
    refused = play_now(Client())
    assert refused.status_code == 429 and int(refused["Retry-After"]) > 0
    assert "Too many guest accounts from your address" in refused.content.decode()
    assert User.objects.filter(guest_until__isnull=False).count() == 5
    assert play_now(Client(), address="198.51.100.9").status_code == 302  # another address


def test_a_guest_plays_one_game_at_a_time(guest_client):
    guest = guest_of(guest_client)
    refused = play_now(guest_client, "captain")
    assert refused.status_code == 429
    assert "As a guest you play one game at a time" in refused.content.decode()
    resign(guest, game_of(guest))
    assert play_now(guest_client, "captain").status_code == 302
    assert Game.objects.filter(seats__user=guest).count() == 2


def test_a_guests_lobby_offers_the_computer_and_signing_up(guest_client):
    body = guest_client.get("/").content.decode()
    assert "Play the computer now" in body and 'href="/accounts/signup/"' in body
    assert "Invite someone" not in body and 'action="/invitations/new/"' not in body


def test_names_like_a_guests_are_kept_for_guests(client):
    response = client.post(
        "/accounts/signup/",
        {
            "username": "guest-ABC123",
            "email": "g@example.org",
            "password1": "tavern-dice-42!",
            "password2": "tavern-dice-42!",
        },
    )
    assert response.status_code == 200
    assert "kept for guests" in response.content.decode()
    assert not User.objects.filter(username__iexact="guest-ABC123").exists()


# -- what a guest cannot do, on every path ---------------------------------------------------


def test_a_guest_cannot_chat_by_the_service_or_the_api(guest_client):
    guest = guest_of(guest_client)
    game = game_of(guest)
    with pytest.raises(Forbidden, match="Sign up to chat"):
        chat.do_chat(game.pk, guest, "ahoy")
    response = post(guest_client, f"/api/games/{game.pk}/chat/", {"text": "ahoy"})
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "guest"
    assert "Sign up to chat with other players" in response.json()["error"]["message"]


@pytest.mark.django_db(transaction=True)
async def test_a_guest_cannot_chat_over_the_socket():
    await database_sync_to_async(the_bots)()
    guest = await database_sync_to_async(guest_accounts.do_make_guest)("203.0.113.8")
    bot = await database_sync_to_async(queries.bot_of_level)("deckhand")
    invitation = await database_sync_to_async(invitations.do_invite)(guest, to=bot.username)
    cookie = await database_sync_to_async(session_cookie)(guest)
    socket = communicator(f"/ws/games/{invitation.game_id}/", cookie)
    connected, _ = await socket.connect()
    assert connected
    assert check(await socket.receive_json_from(timeout=5))["type"] == "state"
    await socket.send_json_to({"type": "chat", "text": "ahoy"})
    answer = check(await socket.receive_json_from(timeout=5))
    assert answer["code"] == "guest" and "Sign up to chat" in answer["message"]
    await socket.disconnect()


def test_a_guest_cannot_invite_a_person_or_anyone_by_form_or_api(guest_client, players):
    guest = guest_of(guest_client)
    for to in ("anna", ""):
        response = guest_client.post("/invitations/new/", {"to": to, "days_per_move": 3})
        assert response.status_code == 302
        assert "Sign up to invite other players" in guest_client.get("/").content.decode()
        answer = post(guest_client, "/api/invitations/", {"to": to or None})
        assert answer.status_code == 403 and answer.json()["error"]["code"] == "guest"
    with pytest.raises(Forbidden, match="Sign up to invite"):
        invitations.do_invite(guest, to="anna")
    assert not Invitation.objects.filter(from_user=guest).exclude(to_user__bot_level__gt="")


def test_a_guests_game_against_the_computer_is_casual_whatever_it_asks(guest_client):
    guest = guest_of(guest_client)
    resign(guest, game_of(guest))
    bot = queries.bot_of_level("captain")
    answer = post(guest_client, "/api/invitations/", {"to": bot.username, "rated": True})
    assert answer.status_code == 201, answer.content
    assert Game.objects.get(pk=answer.json()["game"]).rated is False


def test_a_guest_cannot_accept_an_open_invitation_by_form_or_api(guest_client, players):
    guest = guest_of(guest_client)
    offer = invitations.do_invite(players["anna"])  # open to anyone
    response = guest_client.post(f"/invitations/{offer.pk}/accept/")
    assert response.status_code == 302
    assert "Sign up to play against other people" in guest_client.get("/").content.decode()
    answer = post(guest_client, f"/api/invitations/{offer.pk}/accept/")
    assert answer.status_code == 403 and answer.json()["error"]["code"] == "guest"
    with pytest.raises(Forbidden):
        invitations.do_accept_invitation(offer.pk, guest)
    offer.refresh_from_db()
    assert offer.status == Invitation.Status.OPEN


def test_a_guests_rematch_is_against_the_computer_casual_and_one_at_a_time(guest_client):
    guest = guest_of(guest_client)
    first = game_of(guest)
    resign(guest, first)
    answer = post(guest_client, f"/api/games/{first.pk}/rematch/")
    assert answer.status_code == 201, answer.content
    second = Game.objects.get(pk=answer.json()["game"])
    assert second.rated is False and second.status == Game.Status.ACTIVE
    resign(guest, second)
    assert play_now(guest_client).status_code == 302  # a third game, under way
    refused = post(guest_client, f"/api/games/{second.pk}/rematch/")
    assert refused.status_code == 429
    assert "As a guest you play one game at a time" in refused.json()["error"]["message"]


def test_a_guest_cannot_make_api_tokens_or_report(guest_client):
    guest = guest_of(guest_client)
    game = game_of(guest)
    response = guest_client.post(
        "/accounts/tokens/", {"name": "my bot", "scopes": ["read", "play"]}
    )
    assert response.status_code == 302
    assert "Sign up to use API tokens" in guest_client.get(response["Location"]).content.decode()
    with pytest.raises(Forbidden, match="Sign up to use API tokens"):
        do_issue_token(guest, "my bot")
    assert not guest.api_tokens.exists()
    with pytest.raises(Forbidden, match="Sign up to report"):
        do_report(guest, "it cheats", game_id=game.pk)
    answer = post(guest_client, "/api/reports/", {"game": game.pk, "reason": "it cheats"})
    assert answer.status_code == 403 and answer.json()["error"]["code"] == "guest"


def test_a_guest_never_reaches_the_ratings(guest_client):
    guest = guest_of(guest_client)
    resign(guest, game_of(guest))
    assert not PlayerRating.objects.filter(user=guest).exists()
    assert not RatingChange.objects.filter(user=guest).exists()
    assert guest.username not in Client().get("/ranking/").content.decode()


def test_a_guests_move_puts_its_expiry_off(guest_client):
    guest = guest_of(guest_client)
    User.objects.filter(pk=guest.pk).update(guest_until=guest.guest_until - HOUR)
    guest.refresh_from_db()
    before = guest.guest_until
    resign(guest, game_of(guest))  # a move like any other
    guest.refresh_from_db()
    assert guest.guest_until > before


def test_a_signed_up_player_is_never_renewed_into_a_guest(players):
    anna = players["anna"]
    guest_accounts.renew(anna)
    anna.refresh_from_db()
    assert anna.guest_until is None


# -- signing up keeps the games ---------------------------------------------------------------


def sign_up(client, name="Ahab", email="ahab@example.org"):
    return client.post(
        "/accounts/signup/",
        {
            "username": name,
            "email": email,
            "password1": "white-whale-42",
            "password2": "white-whale-42",
        },
    )


def test_signing_up_turns_the_guest_into_the_account_with_its_games(guest_client):
    guest = guest_of(guest_client)
    game = game_of(guest)
    resign(guest, game)
    assert guest_client.get("/accounts/signup/").status_code == 200  # the form, not away
    response = sign_up(guest_client)
    assert response.status_code == 302, response.content[:500]
    player = User.objects.get(pk=guest.pk)  # the same row
    assert player.username == "Ahab" and player.email == "ahab@example.org"
    assert not player.is_guest and player.has_usable_password()
    assert User.objects.count() == User.objects.filter(bot_level__gt="").count() + 1
    assert game_of(player).pk == game.pk
    # still logged in, now as the account; the finished game is in its list
    assert guest_client.get("/").status_code == 200
    assert f"/games/{game.pk}/" in guest_client.get("/games/finished/").content.decode()
    assert "Sign up to keep your games" not in guest_client.get("/").content.decode()
    assert guest_client.get(f"/games/{game.pk}/").context["game"]["guest"] is False
    # the address is confirmed by its link, as every sign-up's
    address = EmailAddress.objects.get(user=player)
    assert not address.verified
    link = re.search(r"https?://[^/\s]+(/accounts/confirm-email/\S+/)", mail.outbox[-1].body)[1]
    guest_client.post(link)
    address.refresh_from_db()
    assert address.verified
    fresh = Client()
    assert fresh.login(username="ahab", password="white-whale-42")
    assert f"/games/{game.pk}/" in fresh.get("/games/finished/").content.decode()
    assert not RatingChange.objects.exists()  # the guest's game stays unrated


def test_signing_up_with_a_taken_address_leaves_the_guest_a_guest(guest_client, players):
    players["anna"].email = "anna@example.org"
    players["anna"].save()
    guest = guest_of(guest_client)
    sign_up(guest_client, "Ahab", "anna@example.org")
    guest.refresh_from_db()
    assert guest.is_guest and guest.username.startswith("Guest-")
    assert not User.objects.filter(username="Ahab").exists()


def test_the_guest_limits_stop_once_signed_up(guest_client, players):
    guest = guest_of(guest_client)
    sign_up(guest_client)
    player = User.objects.get(pk=guest.pk)
    invitations.do_invite(player, to="anna")  # no longer refused
    with pytest.raises(RateLimited):  # an unrelated limit still holds: proves the path runs
        for _ in range(30):
            invitations.do_invite(player, to="bernd")
