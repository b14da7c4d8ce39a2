"""Guests whose time is up are deleted with their games (games.services.guest_expiry), by
the worker's job; everyone else, and every other game, stays."""

import uuid
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from accounts import guest_accounts
from games import jobs, queries
from games.models import ChatMessage, Command, Event, Game, GameAnalysis, Invitation, Seat
from games.notify.models import Notification
from games.services import commands, guest_expiry, invitations

User = get_user_model()
pytestmark = pytest.mark.django_db
LIFETIME = guest_accounts.GUEST_LIFETIME
SECOND = timedelta(seconds=1)


def guest_with_games(address="203.0.113.20"):
    """A guest with a finished game against the computer (analysed) and one under way."""
    guest = guest_accounts.do_make_guest(address)
    bot = queries.bot_of_level("deckhand")
    done = Game.objects.get(pk=invitations.do_invite(guest, to=bot.username).game_id)
    commands.do_command(done.pk, guest, {"type": "resign"}, done.version, uuid.uuid4().hex)
    under_way = Game.objects.get(pk=invitations.do_invite(guest, to=bot.username).game_id)
    Notification.objects.create(user=guest, kind="turn", key="x", game=under_way)
    guest.refresh_from_db()
    return guest, [done.pk, under_way.pk]


def test_a_guest_whose_time_is_up_is_deleted_with_its_games_and_nothing_else(game, players):
    guest, ids = guest_with_games()
    assert GameAnalysis.objects.filter(game_id=ids[0]).exists()  # queued when it ended
    bot = queries.bot_of_level("deckhand")
    anna_vs_bot = invitations.do_invite(players["anna"], to=bot.username).game_id
    young = guest_accounts.do_make_guest("203.0.113.21", now=timezone.now() + LIFETIME / 2)
    due = guest.guest_until + SECOND

    assert jobs.JOBS["guests"](due) == 1

    assert not User.objects.filter(pk=guest.pk).exists()
    assert not Game.objects.filter(pk__in=ids).exists()
    for model in (Event, Seat, Command, GameAnalysis, Notification):
        assert not model.objects.filter(game_id__in=ids).exists(), model
    assert not Invitation.objects.filter(from_user_id=guest.pk).exists()
    # the computer, the other guest, the people and their games stay
    assert (
        User.objects.filter(pk__in=[bot.pk, young.pk, *[p.pk for p in players.values()]]).count()
        == 5
    )
    assert Game.objects.filter(pk__in=[game.pk, anna_vs_bot]).count() == 2
    assert Event.objects.filter(game_id=game.pk).exists()


def test_nothing_is_deleted_before_its_time_and_a_move_puts_it_off():
    guest, ids = guest_with_games()
    assert jobs.expire_guests(guest.guest_until - SECOND) == 0
    later = guest.guest_until + LIFETIME / 2
    User.objects.filter(pk=guest.pk).update(guest_until=later)  # as a move does
    assert jobs.expire_guests(guest.guest_until + SECOND) == 0
    assert Game.objects.filter(pk__in=ids).count() == 2
    assert jobs.expire_guests(later + SECOND) == 1


def test_a_guest_who_signed_up_is_never_deleted():
    guest, ids = guest_with_games()
    due = guest.guest_until + SECOND
    User.objects.filter(pk=guest.pk).update(guest_until=None, username="Ahab")
    assert guest_expiry.due_guests(due + LIFETIME) == []
    assert guest_expiry.do_expire_guest(guest.pk, due + LIFETIME) is False
    assert Game.objects.filter(pk__in=ids).count() == 2


def test_chat_of_a_deleted_game_goes_with_it():
    """A guest writes none, but a row of any kind that hangs on the game goes too."""
    guest, ids = guest_with_games()
    ChatMessage.objects.create(game_id=ids[1], user=guest, text="ahoy")
    assert guest_expiry.do_expire_guest(guest.pk, timezone.now() + 2 * LIFETIME)
    assert not ChatMessage.objects.exists()


def test_the_longest_due_come_first_a_batch_at_a_time():
    made = [guest_accounts.do_make_guest(f"203.0.113.{n}") for n in range(3)]
    later = max(g.guest_until for g in made) + SECOND
    assert guest_expiry.due_guests(later, limit=2) == [made[0].pk, made[1].pk]
    assert jobs.expire_guests(later) == 3
