"""Accounts on django-allauth, tried as players and as an attacker would."""

import re
import time

import pytest
import time_machine
from allauth.account.models import EmailAddress
from django.core import mail
from django.db import IntegrityError, transaction
from django.test import Client

from accounts.models import User
from games.models import Notification
from games.services import invitations

from ..helpers.accounts import give_authenticator_app, totp_code
from ..helpers.choices import choose
from ..helpers.days import run_worker

pytestmark = pytest.mark.django_db

PASSWORD = "tavern-dice-42"
CONFIRM_LINK = re.compile(r"https?://\S+/accounts/confirm-email/(\S+)/")


def sign_up(client, username, email=None):
    email = email or f"{username}@example.org"
    data = {"username": username, "email": email, "password1": PASSWORD, "password2": PASSWORD}
    return client.post("/accounts/signup/", data)


def confirmation_path(address: str) -> str:
    """The link of the last confirmation email to ``address``, as a path."""
    body = [m for m in mail.outbox if m.to == [address]][-1].body
    return "/accounts/confirm-email/" + CONFIRM_LINK.search(body).group(1) + "/"


def log_in(client, login, password=PASSWORD):
    return client.post("/accounts/login/", {"login": login, "password": password})


# -- sign-up and the confirmation link ---------------------------------------------------


def test_sign_up_sends_a_link_that_confirms_the_address():
    client = Client()
    response = sign_up(client, "anna")
    assert response.status_code == 302 and response["Location"] == "/accounts/confirm-email/"
    anna = User.objects.get(username="anna")
    assert client.get("/").context["user"].is_anonymous  # in by the link (or by logging in)
    assert not anna.email_confirmed()
    assert [m.to for m in mail.outbox] == [["anna@example.org"]]
    path = confirmation_path("anna@example.org")
    assert "Confirm" in client.get(path).content.decode()
    assert not anna.email_confirmed()  # opening the link (a mail scanner) confirms nothing
    assert client.post(path).status_code == 302
    assert anna.email_confirmed()
    assert client.get("/").context["user"] == anna  # the browser that signed up is in
    assert "email-banner" not in client.get("/").content.decode()


def test_sign_up_needs_an_email_address():
    response = sign_up(Client(), "anna", email=" ")
    assert response.status_code == 200
    assert not User.objects.filter(bot_level="").exists()  # the bots aside


def test_one_address_one_account_whatever_its_case():
    sign_up(Client(), "anna", email="Anna@Example.org")
    response = sign_up(Client(), "bernd", email="anna@example.ORG")
    assert response.status_code == 302  # answered as a new address would be: see
    # tests/accounts/test_signup_enumeration.py
    assert list(User.objects.filter(bot_level="").values_list("username", flat=True)) == ["anna"]
    with pytest.raises(IntegrityError), transaction.atomic():
        User.objects.create_user("carl", email="ANNA@EXAMPLE.ORG", password="x")
    # accounts without an address stay possible (createsuperuser, older accounts)
    User.objects.create_user("dora", password="x")
    User.objects.create_user("emil", password="x")


def test_the_lobby_and_the_profile_ask_to_confirm_and_resend_the_link():
    client = Client()
    sign_up(client, "anna")
    log_in(client, "anna")
    lobby = client.get("/").content.decode()
    assert "email-banner" in lobby and "anna@example.org" in lobby
    assert "email-banner" in client.get("/users/anna/").content.decode()
    assert "email-banner" not in Client().get("/users/anna/").content.decode()
    sent = len(mail.outbox)
    # the link went out at sign-up: asking again at once is refused, and says when
    refused = client.post("/accounts/confirm/resend/", {"next": "/"})
    assert refused.status_code == 429 and int(refused["Retry-After"]) > 0
    assert "Try again in" in refused.content.decode() or "try again in" in refused.content.decode()
    assert len(mail.outbox) == sent
    with time_machine.travel(time.time() + 4 * 60):
        resent = client.post("/accounts/confirm/resend/", {"next": "/"})
    assert resent.status_code == 302 and resent["Location"] == "/"
    assert len(mail.outbox) == sent + 1
    client.post(confirmation_path("anna@example.org"))
    assert "email-banner" not in client.get("/").content.decode()


def test_a_player_without_an_address_is_asked_for_one():
    client = Client()
    client.force_login(User.objects.create_user("anna", password="x"))
    assert "You have no email address" in client.get("/").content.decode()


# -- no email of ours to an unconfirmed address -----------------------------------------


def wants_everything(user):
    choose(user, email_on_turn=True, email_reminders=True)
    user.save()


def test_an_unconfirmed_player_gets_no_invitation_and_no_turn_email():
    clients = {name: Client() for name in ("anna", "bernd")}
    for name, client in clients.items():
        sign_up(client, name)
    anna, bernd = User.objects.get(username="anna"), User.objects.get(username="bernd")
    wants_everything(bernd)
    link = confirmation_path("bernd@example.org")
    mail.outbox.clear()
    invitation = invitations.do_invite(anna, to="bernd")
    game = invitations.do_accept_invitation(invitation.pk, bernd)
    run_worker()
    assert mail.outbox == []
    assert not Notification.objects.filter(user=bernd).exists()
    # once confirmed, the next invitation is mailed
    clients["bernd"].post(link)
    mail.outbox.clear()
    invitations.do_invite(anna, to="bernd")
    run_worker()
    assert [m.to for m in mail.outbox] == [["bernd@example.org"]]
    assert game.pk


def test_an_email_queued_before_the_address_changed_is_not_sent_to_the_new_one():
    client = Client()
    sign_up(client, "bernd")
    client.post(confirmation_path("bernd@example.org"))
    bernd = User.objects.get(username="bernd")
    wants_everything(bernd)
    invitations.do_invite(User.objects.create_user("anna", password="x"), to="bernd")
    # the address changes under the queued email (an admin edit, say) and is not confirmed
    User.objects.filter(pk=bernd.pk).update(email="other@example.org")
    mail.outbox.clear()
    run_worker()
    assert mail.outbox == []
    assert Notification.objects.get(user=bernd).detail == "address not confirmed"


def test_a_new_address_replaces_the_old_only_once_confirmed():
    client = Client()
    sign_up(client, "anna")
    client.post(confirmation_path("anna@example.org"))
    response = client.post("/accounts/email/", {"email": "anna@new.example.org", "action_add": ""})
    assert response.status_code == 302
    anna = User.objects.get(username="anna")
    assert anna.email == "anna@example.org" and anna.email_confirmed()
    assert "anna@new.example.org" in client.get("/").content.decode()  # the banner says so
    client.post(confirmation_path("anna@new.example.org"))
    anna.refresh_from_db()
    assert anna.email == "anna@new.example.org" and anna.email_confirmed()
    assert list(EmailAddress.objects.filter(user=anna).values_list("email", flat=True)) == [
        "anna@new.example.org"
    ]


# -- throttling ---------------------------------------------------------------------------


def test_wrong_passwords_for_one_account_are_throttled_then_even_the_right_one():
    User.objects.create_user("anna", email="anna@example.org", password=PASSWORD)
    client = Client()
    statuses = [log_in(client, "anna", "wrong-guess").status_code for _ in range(5)]
    assert statuses == [200] * 5
    refused = log_in(client, "anna", "wrong-guess")
    assert refused.status_code == 429
    wait = int(refused["Retry-After"])
    assert 0 < wait <= 5 * 60
    assert "Too many failed attempts to log in. Try again in" in refused.content.decode()
    # the attacker's 61st try, with the right password: still refused
    right = log_in(client, "anna")
    assert right.status_code == 429
    assert "_auth_user_id" not in client.session
    # from another address too: the limit is the account's
    other = Client(REMOTE_ADDR="10.0.0.9")
    assert log_in(other, "ANNA").status_code == 429
    with time_machine.travel(time.time() + wait + 1):
        assert log_in(Client(), "anna").status_code == 302


def test_wrong_passwords_from_one_address_are_throttled_across_accounts():
    for name in ("anna", "bernd", "carl", "dora"):
        User.objects.create_user(name, password=PASSWORD)
    client = Client()
    tries = [("anna", "bernd", "carl", "dora")[i % 4] for i in range(10)]
    assert all(log_in(client, name, "wrong").status_code == 200 for name in tries)
    assert log_in(client, "dora", "wrong").status_code == 429
    # someone else, elsewhere, is not held up
    assert log_in(Client(REMOTE_ADDR="10.0.0.9"), "dora").status_code == 302


def test_the_admin_login_is_the_throttled_one():
    response = Client().get("/admin/login/?next=/admin/")
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/")
    assert Client().get("/admin/").status_code == 302


def test_sign_ups_from_one_address_are_throttled():
    client = Client()
    statuses = [sign_up(Client(), f"player{i}").status_code for i in range(5)]
    assert statuses == [302] * 5
    refused = sign_up(client, "player5")
    assert refused.status_code == 429 and int(refused["Retry-After"]) > 0
    assert "Try again in" in refused.content.decode()
    assert User.objects.filter(bot_level="").count() == 5


def test_password_resets_are_throttled_per_address_and_mail_one_account():
    User.objects.create_user("anna", email="anna@example.org", password=PASSWORD)
    answers = [
        Client().post("/accounts/password/reset/", {"email": "anna@example.org"}).status_code
        for _ in range(4)
    ]
    assert answers[:3] == [302, 302, 302]
    assert answers[3] == 429
    assert len(mail.outbox) == 3 and all(m.to == ["anna@example.org"] for m in mail.outbox)


# -- suspension --------------------------------------------------------------------------


def test_a_suspended_player_is_told_why_only_with_the_right_password():
    from moderation.services import do_suspend

    anna = User.objects.create_user("anna", password=PASSWORD)
    mia = User.objects.create_superuser("mia", password="x")
    do_suspend(anna.pk, mia, "insults in the chat", days=3)
    told = log_in(Client(), "anna").content.decode()
    assert "Your account is suspended until" in told and "insults in the chat" in told
    wrong = log_in(Client(), "anna", "not-her-password").content.decode()
    assert "suspended" not in wrong and "insults" not in wrong
    do_suspend(User.objects.create_user("bernd", password=PASSWORD).pk, mia, "cheating")
    assert "suspended for good: cheating" in log_in(Client(), "bernd").content.decode()


# -- two factors for staff ----------------------------------------------------------------


def authenticator_secret(client, setup_url) -> str:
    """The secret the set-up page shows: at once after the log in (allauth asks for the
    password again before a second factor is added, unless it was just typed)."""
    page = client.get(setup_url)
    assert page.status_code == 200, page.get("Location")
    return page.context["form"].secret


def test_a_new_staff_member_is_not_asked_again_for_the_password_just_typed(moderator):
    moderator.set_password(PASSWORD)
    moderator.save()
    client = Client()
    log_in(client, "mia")
    to_setup = client.get("/admin/")["Location"]
    assert client.get(to_setup).status_code == 200  # the set-up page, no password again
    # a log in long past is no longer proof: the password is asked again
    with time_machine.travel(time.time() + 301):
        confirm = client.get(to_setup)
        assert confirm["Location"].startswith("/accounts/reauthenticate/")
        back = client.post(confirm["Location"], {"password": PASSWORD})
        assert back["Location"] == to_setup
        assert client.get(to_setup).status_code == 200


@pytest.mark.parametrize("destination", ["/admin/", "/moderation/", "/admin/games/game/"])
def test_staff_land_where_they_were_going_after_setting_up_two_factors(moderator, destination):
    moderator.set_password(PASSWORD)
    moderator.save()
    client = Client()
    log_in(client, "mia")
    to_setup = client.get(destination)["Location"]
    assert to_setup.startswith("/accounts/2fa/totp/activate/?next=")
    secret = authenticator_secret(client, to_setup)
    done = client.post("/accounts/2fa/totp/activate/", {"code": totp_code(secret)})
    # the recovery codes, shown once, with the way on to where they were going
    codes = client.get(done["Location"])
    assert done["Location"].startswith("/accounts/2fa/recovery-codes/?next=")
    html = codes.content.decode()
    assert len(codes.context["unused_codes"]) == 10
    assert f'class="button" href="{destination}"' in html
    assert client.get(destination).status_code == 200


@pytest.mark.parametrize(
    "elsewhere", ["https://evil.example/", "//evil.example/admin/", "javascript:alert(1)"]
)
def test_the_way_on_after_the_set_up_is_never_another_site(moderator, elsewhere):
    moderator.set_password(PASSWORD)
    moderator.save()
    client = Client()
    log_in(client, "mia")
    secret = authenticator_secret(client, "/accounts/2fa/totp/activate/?next=" + elsewhere)
    done = client.post("/accounts/2fa/totp/activate/", {"code": totp_code(secret)})
    assert done["Location"] == "/accounts/2fa/recovery-codes/"  # allauth's, nothing added
    html = client.get(done["Location"]).content.decode()
    assert "evil" not in html and "javascript:" not in html
    html = client.get("/accounts/2fa/recovery-codes/?next=" + elsewhere).content.decode()
    assert "evil" not in html and "javascript:" not in html


def test_a_moderator_needs_a_second_factor_for_the_admin(moderator):
    moderator.set_password(PASSWORD)
    moderator.save()
    client = Client()
    assert log_in(client, "mia").status_code == 302
    to_setup = client.get("/admin/")
    assert to_setup.status_code == 302
    assert to_setup["Location"].startswith("/accounts/2fa/totp/activate/")
    assert client.get("/admin/moderation/auditentry/").status_code == 302
    secret = authenticator_secret(client, to_setup["Location"])
    wrong = client.post("/accounts/2fa/totp/activate/", {"code": "000000"})
    assert wrong.status_code == 200 and client.get("/admin/").status_code == 302
    activated = client.post("/accounts/2fa/totp/activate/", {"code": totp_code(secret)})
    assert activated.status_code == 302
    assert client.get("/admin/").status_code == 200

    # the next log in asks for the code, and the admin opens only with it
    later = time.time() + 60  # a code is good once: the next one comes 30 s later
    with time_machine.travel(later):
        client = Client()
        response = log_in(client, "mia")
        assert response["Location"].startswith("/accounts/2fa/authenticate/")
        assert client.get("/admin/").status_code == 302  # not logged in yet
        done = client.post("/accounts/2fa/authenticate/", {"code": totp_code(secret, later)})
        assert done.status_code == 302
        assert client.get("/admin/").status_code == 200


def test_a_staff_session_that_never_used_its_second_factor_is_asked_for_it(moderator):
    secret = give_authenticator_app(moderator)
    client = Client()
    client.force_login(moderator)  # a session from before the app was set up
    response = client.get("/admin/")
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/2fa/reauthenticate/")
    client.post("/accounts/2fa/reauthenticate/", {"code": totp_code(secret)})
    assert client.get("/admin/").status_code == 200


def test_players_are_not_asked_for_a_second_factor_but_may_set_one_up(players, clients):
    assert clients["anna"].get("/").status_code == 200
    assert clients["anna"].get("/admin/").status_code == 302  # to the login: not staff
    assert clients["anna"].get("/accounts/2fa/").status_code == 200


def test_the_first_admin_from_createsuperuser_sets_up_the_second_factor(monkeypatch):
    from django.core.management import call_command

    monkeypatch.setenv("DJANGO_SUPERUSER_PASSWORD", PASSWORD)
    call_command("createsuperuser", interactive=False, username="root", email="root@example.org")
    client = Client()
    assert log_in(client, "root").status_code == 302
    to_setup = client.get("/admin/")
    assert to_setup["Location"].startswith("/accounts/2fa/totp/activate/")
    secret = authenticator_secret(client, to_setup["Location"])
    client.post("/accounts/2fa/totp/activate/", {"code": totp_code(secret)})
    assert client.get("/admin/").status_code == 200


# -- the old addresses -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("/accounts/password_change/", "/accounts/password/change/"),
        ("/accounts/password_reset/", "/accounts/password/reset/"),
        ("/accounts/password_reset/done/", "/accounts/password/reset/done/"),
        ("/accounts/reset/done/", "/accounts/login/"),
        ("/accounts/reset/MQ/c2ux9k-0123456789abcdef/", "/accounts/password/reset/"),
    ],
)
def test_the_old_account_addresses_lead_to_the_new_pages(old, new):
    response = Client().get(old)
    assert response.status_code in (301, 302)
    assert response["Location"] == new


# -- the migration that made addresses unique ---------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_the_migration_keeps_a_shared_address_on_the_account_in_use(caplog):
    import datetime as dt

    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    before = [("accounts", "0005_translatable_labels")]
    after = [("accounts", "0006_unique_email_and_suspension_reason")]
    executor = MigrationExecutor(connection)
    executor.migrate(before)
    OldUser = executor.loader.project_state(before).apps.get_model("accounts", "User")
    day = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    for name, email, last_login in [
        ("old", "Shared@example.org", day),
        ("used", "shared@EXAMPLE.org", day + dt.timedelta(days=30)),
        ("never", "shared@example.org", None),
        ("alone", "alone@example.org", None),
        ("none", "", None),
    ]:
        OldUser.objects.create(username=name, email=email, last_login=last_login)
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    try:
        with caplog.at_level("WARNING", logger="accounts.migrations"):
            executor.migrate(after)
        emails = dict(OldUser.objects.values_list("username", "email"))
        registered = EmailAddress.objects.values_list("user__username", "email", "verified")
        registered = sorted(registered)
    finally:  # the later migrations again, whatever happened: the next tests need them
        executor = MigrationExecutor(connection)
        executor.migrate(executor.loader.graph.leaf_nodes())
    assert emails == {
        "old": "",
        "used": "shared@EXAMPLE.org",
        "never": "",
        "alone": "alone@example.org",
        "none": "",
    }
    assert sum("lost the address shared@example.org" in r.message for r in caplog.records) == 2
    assert registered == [
        ("alone", "alone@example.org", False),
        ("used", "shared@example.org", False),
    ]


def test_behind_a_proxy_each_client_address_counts_on_its_own(settings):
    settings.ALLAUTH_TRUSTED_PROXY_COUNT = 1  # DJANGO_BEHIND_PROXY=1
    names = ["anna", "bernd", "carl", "dora", "emil"] * 2
    for name in names[:5]:
        User.objects.create_user(name, password=PASSWORD)

    def from_(address):
        return Client(REMOTE_ADDR="10.0.0.1", HTTP_X_FORWARDED_FOR=address)

    assert all(log_in(from_("203.0.113.7"), n, "wrong").status_code == 200 for n in names)
    assert log_in(from_("203.0.113.7"), "anna", "wrong").status_code == 429
    assert log_in(from_("198.51.100.2"), "bernd").status_code == 302


@pytest.mark.parametrize("back", ["//evil.example/", "https://evil.example/", "a b", "a\x00b"])
def test_the_resend_button_goes_back_only_to_a_page_of_this_site(back):
    client = Client()
    sign_up(client, "anna")
    log_in(client, "anna")
    with time_machine.travel(time.time() + 4 * 60):
        response = client.post("/accounts/confirm/resend/", {"next": back})
    assert response.status_code == 302 and response["Location"] == "/"


def test_a_reset_for_an_unknown_address_mails_nobody_and_says_nothing_more():
    User.objects.create_user("anna", email="anna@example.org", password=PASSWORD)
    known = Client().post("/accounts/password/reset/", {"email": "anna@example.org"})
    unknown = Client().post("/accounts/password/reset/", {"email": "stranger@example.org"})
    assert (known.status_code, known["Location"]) == (unknown.status_code, unknown["Location"])
    assert [m.to for m in mail.outbox] == [["anna@example.org"]]


def test_a_changed_password_is_told_by_email(clients, players):
    from ..helpers.accounts import confirmed_address

    confirmed_address(players["anna"])
    clients["anna"].post(
        "/accounts/password/change/",
        {"oldpassword": PASSWORD, "password1": "a-new-tavern-42", "password2": "a-new-tavern-42"},
    )
    assert [m.to for m in mail.outbox] == [["anna@example.org"]]
    assert "password" in mail.outbox[0].subject.lower()
