"""Notifications on by default for a newcomer, and a one-click unsubscribe in every email."""

import random
import re
import uuid
from urllib.parse import urlsplit

import pytest
from django.core import mail, signing
from django.test import Client

from accounts.models import User
from games import rules
from games.models import Game, Notification
from games.notify import queue as notify
from games.notify.preferences import UNSUBSCRIBE_SALT, chosen, unsubscribe_token, wants
from games.services import commands, invitations

from ...accounts.test_allauth import confirmation_path, sign_up
from ...helpers.accounts import confirmed_address
from ...helpers.choices import choices_of_player, choose
from ...helpers.days import DAY, START, run_worker

pytestmark = pytest.mark.django_db

PREFERENCES = ("email_on_turn", "email_invitations", "daily_digest", "email_reminders")
# A new account's: turn and invitation emails on; the digest and the reminders as before.
DEFAULTS = {
    "email_on_turn": True,
    "email_invitations": True,
    "daily_digest": False,
    "email_reminders": True,
}
# How the test tells the emails apart: a piece of each subject.
SUBJECTS = {
    "turn": "Your turn against",
    "invitation": "invites you to a game",
    "reminder": "Reminder: your move",
    "digest": "waiting for your move",
    "timeout": "on time",
}
LINK = re.compile(r"<(https?://\S+/accounts/unsubscribe/\S+/)>")


TIMEOUTS = (*PREFERENCES, "email_timeouts")


def preferences(user, names=PREFERENCES) -> dict:
    return choices_of_player(user, names)


def new_player(name: str) -> User:
    """A player who signed up and followed the confirmation link, and did nothing else."""
    client = Client()
    assert sign_up(client, name).status_code == 302
    assert client.post(confirmation_path(f"{name}@example.org")).status_code == 302
    user = User.objects.get(username=name)
    assert user.email_confirmed()
    return user


def player(name: str, **choices) -> User:
    user = User.objects.create_user(name, password="x")
    choose(user, **choices)
    confirmed_address(user)
    return user


def next_turn_of(game: Game, user, seed: int = 0) -> Game:
    """Random legal moves (never resigning) until a new turn of ``user`` begins."""
    rng = random.Random(seed)
    turn = game.turn_number
    by_seat = {seat.seat: seat.user for seat in game.seats.all()}
    while True:
        game.refresh_from_db()
        assert game.status == Game.Status.ACTIVE
        if game.to_move_id == user.pk and game.turn_number != turn:
            return game
        state = game.rules_state()
        command = rules.random_command(state, state.turn, rng)
        mover = by_seat[state.turn]
        commands.do_command(game.pk, mover, command, game.version, str(uuid.uuid4()))


def new_game(inviter, invited) -> Game:
    invitation = invitations.do_invite(inviter, to=invited.username)
    return invitations.do_accept_invitation(invitation.pk, invited)


def to(user) -> list:
    return [m for m in mail.outbox if m.to == [user.email]]


def email_of(kind: str, user):
    (message,) = [m for m in to(user) if SUBJECTS[kind] in m.subject]
    return message


def sent_kinds(user, now) -> list[str]:
    """The kinds of the emails sent to ``user`` by the worker's run at ``now``."""
    rows = Notification.objects.filter(user=user, outcome="sent", sent_at=now)
    return sorted(rows.values_list("kind", flat=True))


def one_click_link(message) -> str:
    """The unsubscribe link of an email, as RFC 8058 has it, after checking that the
    body gives the same link."""
    assert message.extra_headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    url = LINK.fullmatch(message.extra_headers["List-Unsubscribe"]).group(1)
    assert url in message.body
    rendered = message.message()  # the headers as they go on the wire
    assert rendered["List-Unsubscribe"] == f"<{url}>"
    assert rendered["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    return urlsplit(url).path


# -- a newcomer gets the emails with no other step; an unconfirmed address gets none --------


def test_a_new_confirmed_player_gets_the_invitation_and_the_turn_emails():
    anna, bernd = new_player("anna"), new_player("bernd")
    assert preferences(anna) == preferences(bernd) == DEFAULTS
    mail.outbox.clear()
    invitation = invitations.do_invite(anna, to="bernd")
    run_worker()
    assert [m.to for m in mail.outbox] == [["bernd@example.org"]]
    assert "anna invites you" in mail.outbox[0].subject
    mail.outbox.clear()
    game = invitations.do_accept_invitation(invitation.pk, bernd)
    first, second = (anna, bernd) if game.to_move_id == anna.pk else (bernd, anna)
    run_worker()
    assert [m.to for m in mail.outbox] == [[first.email]]
    assert SUBJECTS["turn"] in mail.outbox[0].subject
    next_turn_of(game, second)
    run_worker()
    assert [m.to for m in mail.outbox] == [[first.email], [second.email]]
    assert SUBJECTS["turn"] in mail.outbox[1].subject


def test_an_unconfirmed_player_gets_no_email_of_ours():
    for name in ("anna", "bernd"):
        sign_up(Client(), name)  # the confirmation links are never followed
    anna, bernd = User.objects.get(username="anna"), User.objects.get(username="bernd")
    on = preferences(bernd, ("email_on_turn", "email_invitations"))
    assert all(on.values())  # on, but not to this address
    mail.outbox.clear()
    game = new_game(anna, bernd)
    next_turn_of(game, anna)
    next_turn_of(game, bernd)
    run_worker()
    assert mail.outbox == []
    assert not Notification.objects.exists()


def test_turn_and_invitation_emails_are_two_preferences(client):
    bernd = player("bernd")
    client.force_login(bernd)
    data = {"email_on_turn": "on", "time_zone": "UTC", "language": ""}  # invitations off
    assert client.post("/accounts/preferences/", data).status_code == 302
    bernd.refresh_from_db()
    assert wants(bernd, "turn", "email") and not wants(bernd, "invitation", "email")
    assert "email_invitations" in client.get("/settings/").content.decode()
    data = {"email_invitations": "on", "time_zone": "UTC", "language": ""}  # turns off
    client.post("/accounts/preferences/", data)
    bernd.refresh_from_db()
    assert not wants(bernd, "turn", "email") and wants(bernd, "invitation", "email")


# -- the one-click unsubscribe link ---------------------------------------------------------


def one_of_each(traveller, day: int, anna, bernd, game) -> tuple[Game, object]:
    """On day ``day``, bernd's next turn (a turn email, or his digest), a reminder of it
    and an invitation: the worker's run of that day sends them; when it ran."""
    now = START + day * DAY
    traveller.move_to(now)
    game = next_turn_of(game, bernd, seed=day)
    notify.reminder(game)
    invitations.do_invite(anna, to="bernd")
    run_worker()
    return game, now


@pytest.mark.parametrize(
    ("kind", "turned_off"),
    [
        ("turn", {"email_on_turn"}),
        ("invitation", {"email_invitations"}),
        ("reminder", {"email_reminders"}),
        # the digest stands in for the turn emails: none starts in its place
        ("digest", {"daily_digest", "email_on_turn"}),
    ],
)
def test_the_link_in_an_email_turns_off_exactly_its_kind(traveller, kind, turned_off):
    anna, bernd = player("anna"), player("bernd", daily_digest=kind == "digest")
    game = new_game(anna, bernd)
    run_worker()  # the game's first turn: not the emails of the days below
    mail.outbox.clear()
    game, now = one_of_each(traveller, 1, anna, bernd, game)
    first = ["digest" if kind == "digest" else "turn", "invitation", "reminder"]
    assert sent_kinds(bernd, now) == sorted(first)
    path = one_click_link(email_of(kind, bernd))
    before = preferences(bernd)

    reader = Client()  # a mail scanner, or bernd logged out: no session
    for response in (reader.get(path), reader.head(path), reader.get(path)):
        assert response.status_code == 200
    page = reader.get(path).content.decode()
    assert "Stop these emails" in page and 'method="post"' in page
    assert preferences(bernd) == before  # opening the link changes nothing

    response = reader.post(path)
    assert response.status_code == 200
    page = response.content.decode()
    assert "You will no longer get" in page
    assert "Turn them back on in your preferences" in page
    assert "/accounts/login/?next=/settings/%23notifications" in page
    after = preferences(bernd)
    assert {name for name in PREFERENCES if after[name] != before[name]} == turned_off
    assert not any(after[name] for name in turned_off)

    mail.outbox.clear()
    game, now = one_of_each(traveller, 2, anna, bernd, game)
    assert sent_kinds(bernd, now) == sorted(set(first) - {kind})  # the next one is not sent
    assert not [m for m in to(bernd) if SUBJECTS[kind] in m.subject]
    assert len(to(bernd)) == len(first) - 1
    assert preferences(anna) == DEFAULTS  # hers are hers
    # opened again, the link says they are off, and its page changes nothing
    assert "already off" in reader.get(path).content.decode()
    assert preferences(bernd) == after
    # logged in, the way back is the settings page
    logged_in = Client()
    logged_in.force_login(bernd)
    assert 'href="/settings/#notifications"' in logged_in.get(path).content.decode()


def test_a_mail_clients_one_click_post_needs_no_session_and_no_csrf_token():
    anna, bernd = player("anna"), player("bernd")
    invitations.do_invite(anna, to="bernd")
    run_worker()
    path = one_click_link(email_of("invitation", bernd))
    mail_client = Client(enforce_csrf_checks=True)
    response = mail_client.post(
        path, "List-Unsubscribe=One-Click", content_type="application/x-www-form-urlencoded"
    )
    assert response.status_code == 200
    assert not preferences(bernd)["email_invitations"]
    assert preferences(bernd)["email_on_turn"]


def test_the_timeout_emails_link_turns_off_the_timeout_emails(clocked, traveller):
    late = clocked.to_move
    traveller.move_to(START + 5 * DAY + DAY / 2)
    run_worker()
    assert list(Notification.objects.values_list("kind", flat=True)) == ["timeout"] * 2
    message = email_of("timeout", late)
    assert "won or lost on time" in message.body  # the footer names what the link stops
    path = one_click_link(message)
    before = preferences(late, TIMEOUTS)
    page = Client().get(path).content.decode()
    assert "won or lost on time?" in page
    assert preferences(late, TIMEOUTS) == before
    Client().post(path)
    assert preferences(late, TIMEOUTS) == {**before, "email_timeouts": False}


def test_a_timeout_link_of_the_earlier_release_still_turns_off_the_turn_emails(clocked):
    """Emails already in inboxes carry links signed "turn": they keep doing what they said."""
    late = clocked.to_move
    token = signing.Signer(salt=UNSUBSCRIBE_SALT).sign_object([late.pk, "turn"])
    Client().post(f"/accounts/unsubscribe/{token}/")
    assert preferences(late, TIMEOUTS) == {
        **DEFAULTS,
        "email_timeouts": True,
        "email_on_turn": False,
    }


def test_every_email_of_ours_has_the_one_click_headers(traveller):
    anna, bernd = player("anna", daily_digest=True), player("bernd")
    next_turn_of(new_game(anna, bernd), anna)  # anna waits: her digest
    game = next_turn_of(new_game(anna, bernd), bernd)  # bernd waits: his turn email
    notify.reminder(game)
    invitations.do_invite(anna, to="bernd")
    run_worker()
    traveller.move_to(START + DAY)  # past the morning hour of anna's digest
    run_worker()
    traveller.move_to(START + 4 * DAY)  # both games' time runs out
    run_worker()
    kinds = set()
    for message in mail.outbox:
        if "/accounts/confirm-email/" in message.body:
            continue
        one_click_link(message)
        kinds |= {kind for kind, words in SUBJECTS.items() if words in message.subject}
    assert kinds == set(SUBJECTS)


# -- a link that is not ours -----------------------------------------------------------------


def tampered(token: str, other_id: int) -> list[str]:
    payload, signature = token.rsplit(":", 1)
    swapped = signing.b64_encode(f'[{other_id},"turn"]'.encode()).decode()
    flipped = signature[:-1] + ("A" if signature[-1] != "A" else "B")
    return [
        f"{payload}:{flipped}",  # the signature changed
        f"{swapped}:{signature}",  # another player, the old signature
        payload,  # the signature cut off
        "nonsense",
        signing.Signer(salt="another.purpose").sign_object([other_id, "turn"]),
        signing.Signer(salt=UNSUBSCRIBE_SALT).sign_object([other_id, "everything"]),
        signing.Signer(salt=UNSUBSCRIBE_SALT).sign_object({"user": other_id}),
        signing.Signer(salt=UNSUBSCRIBE_SALT).sign_object(["1", "turn"]),
    ]


def test_a_tampered_link_gets_a_clear_400_and_changes_nothing():
    anna, bernd = player("anna"), player("bernd")
    token = unsubscribe_token(bernd, "turn")
    before = {user.pk: preferences(user) for user in (anna, bernd)}
    client = Client(raise_request_exception=True)
    for bad in tampered(token, anna.pk):
        for response in (
            client.get(f"/accounts/unsubscribe/{bad}/"),
            client.post(f"/accounts/unsubscribe/{bad}/"),
        ):
            assert response.status_code == 400, bad
            assert "This unsubscribe link is not valid" in response.content.decode()
    assert {user.pk: preferences(user) for user in (anna, bernd)} == before


def test_the_link_of_a_deleted_account_is_a_404_page():
    bernd = player("bernd")
    token = unsubscribe_token(bernd, "invitation")
    bernd.delete()
    response = Client(raise_request_exception=True).post(f"/accounts/unsubscribe/{token}/")
    assert response.status_code == 404
    assert "no longer exists" in response.content.decode()


# -- the migration keeps what existing players chose --------------------------------------


@pytest.mark.django_db(transaction=True)
def test_the_migration_keeps_each_players_choices():
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    before = [("accounts", "0007_language_and_time_zone")]
    after = [("accounts", "0008_notifications_on_by_default")]
    executor = MigrationExecutor(connection)
    executor.migrate(before)
    OldUser = executor.loader.project_state(before).apps.get_model("accounts", "User")
    chosen = {
        "quiet": {"email_on_turn": False, "daily_digest": False, "email_reminders": False},
        "turns": {"email_on_turn": True, "daily_digest": False, "email_reminders": True},
        "digest": {"email_on_turn": True, "daily_digest": True, "email_reminders": False},
        "default": {},  # what the old defaults gave: no turn emails, reminders
    }
    for name, choices in chosen.items():
        OldUser.objects.create(username=name, email=f"{name}@example.org", **choices)
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    try:
        executor.migrate(after)
        NewUser = executor.loader.project_state(after).apps.get_model("accounts", "User")
        kept = {
            user.username: {name: getattr(user, name) for name in PREFERENCES}
            for user in NewUser.objects.all()
        }
        NewUser.objects.create(username="newcomer", email="newcomer@example.org")
        newcomer = NewUser.objects.values(*PREFERENCES).get(username="newcomer")
    finally:  # the later migrations again, whatever happened: the next tests need them
        executor = MigrationExecutor(connection)
        executor.migrate(executor.loader.graph.leaf_nodes())
    assert kept == {
        "quiet": {
            "email_on_turn": False,
            "email_invitations": False,
            "daily_digest": False,
            "email_reminders": False,
        },
        "turns": {
            "email_on_turn": True,
            "email_invitations": True,
            "daily_digest": False,
            "email_reminders": True,
        },
        "digest": {
            "email_on_turn": True,
            "email_invitations": True,
            "daily_digest": True,
            "email_reminders": False,
        },
        "default": {
            "email_on_turn": False,
            "email_invitations": False,
            "daily_digest": False,
            "email_reminders": True,
        },
    }
    assert newcomer == DEFAULTS


NINE = (
    "email_on_turn",
    "email_invitations",
    "daily_digest",
    "email_reminders",
    "email_timeouts",
    "push_on_turn",
    "push_invitations",
    "push_reminders",
    "push_timeouts",
)


@pytest.mark.django_db(transaction=True)
def test_the_move_to_one_column_copies_every_players_nine_choices_exactly():
    """accounts 0016: each player's nine preferences, as they were, become their stored
    choices; the columns stay for the release still serving, whose inserts and reads go
    on (0017 gives them database defaults for this release's inserts)."""
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    before = [("accounts", "0015_user_notification_choices")]
    executor = MigrationExecutor(connection)
    executor.migrate(before)
    OldUser = executor.loader.project_state(before).apps.get_model("accounts", "User")
    rng = random.Random(7)
    old = {}
    for n in range(12):
        values = {name: rng.random() < 0.5 for name in NINE}
        OldUser.objects.create(username=f"p{n}", email=f"p{n}@example.org", **values)
        old[f"p{n}"] = values
    OldUser.objects.create(username="untouched", email="u@example.org")  # the defaults
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    try:
        executor.migrate(executor.loader.graph.leaf_nodes())
        # The release still serving inserts a player. Only on PostgreSQL, where releases
        # overlap: SQLite rebuilds a table to add a column that is not null (accounts
        # 0019), keeping only the columns the models name.
        serving = connection.vendor == "postgresql"
        with connection.cursor() as cursor:
            columns = ", ".join(NINE)
            if serving:
                cursor.execute(
                    f"INSERT INTO accounts_user (username, email, password, is_superuser, "
                    f"is_staff, is_active, first_name, last_name, date_joined, language, "
                    f"time_zone, suspension_reason, bot_level, push_devices, {columns}) "
                    f"VALUES ('olduser', '', '', false, false, true, '', '', "
                    f"CURRENT_TIMESTAMP, '', 'UTC', '', '', 0, {', '.join(['true'] * 9)})"
                )
        User.objects.create_user("newcomer", password="x")  # this release, which names none
    finally:
        executor = MigrationExecutor(connection)
        executor.migrate(executor.loader.graph.leaf_nodes())
    for name, values in old.items():
        user = User.objects.get(username=name)
        assert user.notification_choices == values
        assert {field: chosen(user, field) for field in NINE} == values
    untouched = User.objects.get(username="untouched")
    assert untouched.notification_choices == {
        **DEFAULTS,
        **{
            "email_timeouts": True,
            "push_on_turn": True,
            "push_invitations": True,
            "push_reminders": True,
            "push_timeouts": True,
        },
    }
    if serving:
        assert User.objects.get(username="olduser").notification_choices == {}  # the defaults
    assert User.objects.get(username="newcomer").notification_choices == {}
