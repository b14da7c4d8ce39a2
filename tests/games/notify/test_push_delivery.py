"""Push notifications through the outbox, to a push service of the test's own on
127.0.0.1: the real encrypted request is decrypted with the keys the test made for the
device, and its VAPID signature checked against the server's key."""

import datetime as dt
import uuid

import pytest
from django.utils import timezone, translation

from accounts.models import PushSubscription
from games.clock import effective_deadline
from games.models import Game, Notification
from games.notify import queue as notify
from games.notify import send
from games.services import commands, endings, invitations, presence
from shanghaien.lib import webpush
from shanghaien.lib.local_time import local_moment

from ...helpers.choices import choose
from ...helpers.push_service import Device, serve, vapid_claims

pytestmark = pytest.mark.django_db


@pytest.fixture
def push_service(settings):
    settings.PUSH_ALLOW_LOCAL_ENDPOINTS = True
    service, server = serve()
    yield service
    server.shutdown()
    server.server_close()


def add_device(user, service, name="phone") -> tuple[Device, PushSubscription]:
    device = Device()
    subscription = PushSubscription.objects.create(
        user=user,
        endpoint=service.endpoint(name),
        p256dh=device.p256dh,
        auth=webpush.b64url(device.auth),
        vapid_key=webpush.public_key(),
        user_agent="Mozilla/5.0 (Linux; Android 14) Chrome/131.0 Mobile Safari/537.36",
    )
    user.refresh_from_db(fields=["push_devices"])  # as the next request would read it
    return device, subscription


def move(game) -> None:
    """The player on turn plays one legal command (a roll starts every turn)."""
    from games import rules

    game.refresh_from_db()
    state = game.rules_state()
    mover = game.seats.get(seat=state.turn).user
    command = rules.legal_commands(state, state.turn)[0]
    commands.do_command(game.pk, mover, command, game.version, str(uuid.uuid4()))
    game.refresh_from_db()


def until_the_turn_passes(game) -> None:
    """Moves until the other player is on turn."""
    game.refresh_from_db()
    first = game.to_move_id
    while game.to_move_id == first and game.status == Game.Status.ACTIVE:
        move(game)


def test_a_move_pushes_your_turn_to_each_device_and_it_decrypts(game, players, push_service):
    anna, bernd = players["anna"], players["bernd"]
    waiting = bernd if game.to_move_id == anna.pk else anna
    phone, _ = add_device(waiting, push_service, "phone")
    laptop, _ = add_device(waiting, push_service, "laptop")
    until_the_turn_passes(game)
    assert game.to_move_id == waiting.pk
    rows = Notification.objects.filter(channel="push", user=waiting)
    assert rows.count() == 2 and {r.kind for r in rows} == {"turn"}

    assert send.send_pushes() == 2
    opponent = anna if waiting == bernd else bernd
    for device, name in ((phone, "phone"), (laptop, "laptop")):
        (received,) = push_service.to(name)
        payload = device.decrypt(received)
        assert payload["title"] == f"Your turn against {opponent.username}"
        assert payload["body"].startswith("Move by ")
        assert payload["url"] == f"/games/{game.pk}/" and payload["tag"] == f"game-{game.pk}"
        assert payload["lang"] == "en"
        assert received.headers["topic"] == f"game-{game.pk}"  # a newer one replaces it
        deadline_seconds = (game.deadline - timezone.now()).total_seconds()
        assert 0 < int(received.headers["ttl"]) <= deadline_seconds + 1
        claims = vapid_claims(received, webpush.public_key())
        assert claims["aud"] == push_service.url and claims["sub"].startswith("mailto:")
    assert all(r.outcome == "sent" and r.attempts == 1 for r in rows.all())
    assert PushSubscription.objects.filter(last_success_at__isnull=False).count() == 2


def test_a_push_is_in_the_players_language_and_time_zone(game, players, push_service):
    player = game.to_move
    player.language, player.time_zone = "de", "Europe/Berlin"
    player.save()
    device, _ = add_device(player, push_service)
    notify.tell(player, "turn", "again", game)
    send.send_pushes()
    payload = device.decrypt(push_service.to("phone")[0])
    assert payload["title"].startswith("Du bist am Zug gegen") and payload["lang"] == "de"
    with translation.override("de"), timezone.override(player.zone):
        when = local_moment(effective_deadline(game))
    assert payload["body"] == f"Zieh bis {when}." or when in payload["body"]
    assert "UTC" not in when


@pytest.mark.parametrize("status", [404, 410])
def test_a_device_the_push_service_no_longer_knows_is_forgotten(game, push_service, status):
    player = game.to_move
    add_device(player, push_service, "gone")
    kept_device, kept = add_device(player, push_service, "kept")
    push_service.status["/push/gone"] = status
    notify.tell(player, "turn", "1", game)
    assert send.send_pushes() == 1
    assert list(PushSubscription.objects.all()) == [kept]
    gone_row = Notification.objects.get(channel="push", subscription=None)
    assert gone_row.outcome == "failed" and gone_row.next_attempt_at is None
    assert f"answered {status}" in gone_row.detail
    assert kept_device.decrypt(push_service.to("kept")[0])["tag"] == f"game-{game.pk}"


def test_a_failed_push_is_tried_again_later_like_an_email(game, push_service):
    player = game.to_move
    device, subscription = add_device(player, push_service)
    push_service.status["/push/phone"] = 500
    notify.tell(player, "turn", "1", game)
    now = timezone.now()
    assert send.send_pushes(now) == 0
    row = Notification.objects.get(channel="push")
    assert (row.attempts, row.outcome, row.sent_at) == (1, "", None)
    assert row.next_attempt_at == now + send.RETRY_DELAYS[0]
    assert "answered 500" in row.detail
    assert send.send_pushes(now + dt.timedelta(seconds=30)) == 0  # not yet due
    del push_service.status["/push/phone"]
    assert send.send_pushes(now + send.RETRY_DELAYS[0]) == 1
    row.refresh_from_db()
    assert (row.attempts, row.outcome) == (2, "sent")
    assert len(push_service.to("phone")) == 3 - 1  # the failed try and the good one
    assert device.decrypt(push_service.to("phone")[-1])["url"] == f"/games/{game.pk}/"
    subscription.refresh_from_db()
    assert subscription.last_success_at == now + send.RETRY_DELAYS[0]


def test_a_redirect_is_not_followed_the_push_goes_to_the_endpoint_only(game, push_service):
    elsewhere, other_server = serve()
    try:
        player = game.to_move
        add_device(player, push_service)
        push_service.status["/push/phone"] = 307
        push_service.location = elsewhere.endpoint("stolen")
        notify.tell(player, "turn", "1", game)
        assert send.send_pushes() == 0
        assert len(push_service.to("phone")) == 1 and elsewhere.received == []
        row = Notification.objects.get(channel="push")
        assert row.attempts == 1 and row.next_attempt_at is not None  # tried again later
    finally:
        other_server.shutdown()
        other_server.server_close()


def test_an_endpoint_no_longer_allowed_is_never_posted_to(game, push_service, settings):
    player = game.to_move
    add_device(player, push_service)
    notify.tell(player, "turn", "1", game)
    settings.PUSH_ALLOW_LOCAL_ENDPOINTS = False  # as in production: https push services only
    send.send_pushes()
    assert push_service.received == [] and not PushSubscription.objects.exists()
    assert Notification.objects.get(channel="push").detail.startswith("device forgotten")


def test_no_push_while_the_game_is_open_nor_once_the_turn_is_played(game, push_service):
    player = game.to_move
    add_device(player, push_service)
    notify.tell(player, "turn", "open", game)
    presence.socket_opened(game.pk, player)
    send.send_pushes()
    presence.socket_closed(game.pk, player)
    notify.tell(player, "turn", "played", game)
    until_the_turn_passes(game)
    send.send_pushes()
    details = dict(
        Notification.objects.filter(channel="push", key__in=["open", "played"]).values_list(
            "key", "detail"
        )
    )
    assert details == {"open": "game open", "played": "no longer your turn"}
    assert push_service.received == []


def test_each_kind_goes_where_the_player_chose(game, players, push_service):
    player = game.to_move
    add_device(player, push_service)
    choose(
        player, push_on_turn=False, email_on_turn=False, push_reminders=True, email_reminders=False
    )
    notify.your_turn(game)
    assert not Notification.objects.filter(kind="turn", user=player).exists()
    assert notify.reminder(game)
    assert list(Notification.objects.filter(user=player).values_list("kind", "channel")) == [
        ("reminder", "push")
    ]


def test_an_invitation_and_a_game_lost_on_time_are_pushed(players, push_service):
    anna, bernd = players["anna"], players["bernd"]
    device, _ = add_device(bernd, push_service)
    invitation = invitations.do_invite(anna, to="bernd", message="Ahoy, one more?")
    send.send_pushes()
    payload = device.decrypt(push_service.to("phone")[0])
    assert payload == {
        "title": "anna invites you to a game of Shanghaien",
        "body": "Ahoy, one more?",
        "url": "/",
        "tag": f"invitation-{invitation.pk}",
        "lang": "en",
    }
    game = invitations.do_accept_invitation(invitation.pk, bernd)
    push_service.received.clear()
    game.refresh_from_db()
    late = game.to_move
    if late != bernd:
        add_device(late, push_service, "anna")
    endings.do_timeout(game.pk, game.deadline + dt.timedelta(seconds=1))
    send.send_pushes()
    titles = {device.decrypt(r)["title"] for r in push_service.to("phone")}
    lost_or_won = "lost" if late == bernd else "won"
    assert f"Game {game.pk} {lost_or_won} on time" in titles


def test_a_device_subscribed_with_a_retired_key_is_signed_with_it(game, push_service, settings):
    from py_vapid import Vapid02

    old = Vapid02()
    old.generate_keys()
    old_private = webpush.b64url(old.private_key.private_numbers().private_value.to_bytes(32))
    settings.VAPID_PRIVATE_KEY = webpush._development_key()  # the current key, by name
    settings.VAPID_OLD_PRIVATE_KEYS = [old_private]
    old_public = webpush.public_key_of(old)
    assert webpush.public_key() != old_public and old_public in webpush.keys()  # noqa: SIM118 (a function, not a dict)
    player = game.to_move
    _, subscription = add_device(player, push_service)
    PushSubscription.objects.filter(pk=subscription.pk).update(vapid_key=old_public)
    notify.tell(player, "turn", "1", game)
    send.send_pushes()
    vapid_claims(push_service.to("phone")[0], old_public)  # signed with the retired key
    settings.VAPID_OLD_PRIVATE_KEYS = []  # retired for good: the device is forgotten
    notify.tell(player, "turn", "2", game)
    send.send_pushes()
    assert len(push_service.received) == 1 and not PushSubscription.objects.exists()


def test_a_removed_device_gets_nothing_of_what_was_queued_for_it(game, push_service):
    player = game.to_move
    _, subscription = add_device(player, push_service)
    notify.tell(player, "turn", "1", game)
    subscription.delete()
    send.send_pushes()
    row = Notification.objects.get(channel="push")
    assert (row.outcome, row.detail) == ("skipped", "device removed")
    assert push_service.received == []


def test_the_worker_sends_pushes_and_emails_apart(game, push_service):
    player = game.to_move
    add_device(player, push_service)
    notify.tell(player, "timeout", "x", game)
    notify.queue(player, "turn", "y", game)  # an email row
    assert send.send_pushes() == 1
    assert Notification.objects.get(channel="email").sent_at is None  # left for the email job
