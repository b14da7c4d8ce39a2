"""The moderators' console in a browser: a player reports a chat message from the board,
a new moderator sets up two factors on the way in (not asked for the password again,
landing on the console after the recovery codes), sees the message in its chat and
hides it in one step; both players find their notice on their next page, and by email."""

import pytest
from django.core import mail

from moderation.models import AuditEntry, Report

from .conftest import SCREENSHOTS
from .helpers import PASSWORD, in_thread, log_in_by_cookie
from .test_accounts_browser import fresh_totp, log_in
from .test_board import game_between  # noqa: F401 (a fixture)
from .test_report_dialog import LAPTOP, PHONE, open_board, say

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def make_moderator(django_user_model, name="mia", language=""):
    """A moderator with a password the server can check (the tests hash with MD5, the
    server knows only its own hashers) and a confirmed address."""
    from allauth.account.models import EmailAddress
    from django.contrib.auth.hashers import PBKDF2PasswordHasher
    from django.contrib.auth.models import Group

    from moderation.roles import MODERATORS

    def make():
        user = django_user_model.objects.create_user(
            name, email=f"{name}@example.org", is_staff=True, language=language
        )
        hasher = PBKDF2PasswordHasher()
        user.password = hasher.encode(PASSWORD, hasher.salt())
        user.save(update_fields=["password"])
        user.groups.add(Group.objects.get(name=MODERATORS))
        EmailAddress.objects.create(user=user, email=user.email, verified=True, primary=True)
        return user

    return in_thread(make)


def moderator_page(browser, base_url, user, device, **options):
    """A page of ``user``'s, logged in with an authenticator app used in the session."""
    from django.test import Client

    from ..helpers.accounts import log_in_with_second_factor

    client = Client()
    in_thread(log_in_with_second_factor, client, user)
    context = browser.new_context(**device, **options)
    context.add_cookies(
        [{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": base_url}]
    )
    return context, context.new_page()


def report_a_message(reporter, author, game, text="you play like a landlubber"):
    """A chat around a message of ``author``'s that ``reporter`` reports."""
    from games.services.chat import do_chat
    from moderation.services import do_report

    do_chat(game.pk, reporter, "good luck")
    do_chat(game.pk, author, "thanks, you too")
    message = do_chat(game.pk, author, text)
    do_chat(game.pk, reporter, "that was rude")
    return do_report(reporter, "Abuse or insults: the third insult today", message_id=message.pk)


def test_a_report_is_handled_from_the_console_and_both_players_are_told(
    asgi_server,
    browser,
    game_between,  # noqa: F811
    django_user_model,
    screenshot,
    settings,
):
    from games.notify.send import send_notifications

    from ..helpers.accounts import confirmed_address

    settings.SITE_URL = asgi_server
    game, anna, bernd = game_between()
    for player in (anna, bernd):
        in_thread(confirmed_address, player)

    # bernd reports anna's insult from the board
    anna_context, anna_page = open_board(browser, asgi_server, anna, game, LAPTOP)
    bernd_context, bernd_page = open_board(browser, asgi_server, bernd, game, LAPTOP)
    say(anna_page, "you play like a landlubber")
    line = bernd_page.locator(".messages-list li.opponent")
    line.wait_for()
    bernd_page.click("[data-report-message]")
    bernd_page.check(".report-dialog input[value=abuse]")
    bernd_page.click(".report-dialog button[type=submit]")
    line.locator(".reported").wait_for()
    report = in_thread(Report.objects.get)

    # a new moderator logs in, is sent to set up an authenticator app without typing the
    # password again, keeps the recovery codes and goes on to the console
    mia = make_moderator(django_user_model)
    context = browser.new_context(**LAPTOP)
    page = context.new_page()
    page.goto(asgi_server + "/accounts/login/?next=/moderation/")
    log_in(page, asgi_server, "mia", PASSWORD)
    assert "/accounts/2fa/totp/activate/" in page.url, page.url  # not the password again
    page.fill("#id_code", fresh_totp(page.input_value("#authenticator_secret")))
    with page.expect_navigation():
        page.locator("main").get_by_role("button", name="Activate").click()
    assert "/accounts/2fa/recovery-codes/" in page.url, page.url
    assert page.locator("#recovery_codes").input_value().count("\n") == 9  # ten codes
    screenshot(page, "moderation-recovery-codes-continue")
    with page.expect_navigation():
        page.get_by_role("link", name="I have kept my recovery codes: continue").click()
    assert page.url == asgi_server + "/moderation/", page.url

    # the message in its chat, the game linked, and the report handled in one step
    case = page.locator(f"#report-{report.pk}")
    reported = case.locator(".chat-context li.reported")
    assert "you play like a landlubber" in reported.inner_text()
    assert "reported" in reported.inner_text()
    assert case.locator(f'a[href="/games/{game.pk}/"]').count() == 1
    assert "0 warnings" in case.inner_text()
    screenshot(page, "moderation-flow-console")
    case.locator("textarea[name=reason]").fill("Insults are not welcome here.")
    with page.expect_navigation():
        case.get_by_role("button", name="Hide the message").click()
    assert f"Report {report.pk} handled" in page.inner_text(".messages")
    assert "No open reports." in page.inner_text("main")
    assert in_thread(lambda: Report.objects.get().status) == "resolved"
    actions = in_thread(lambda: sorted(AuditEntry.objects.values_list("action", flat=True)))
    assert actions == ["hide_message", "resolve_report"]
    assert in_thread(lambda: {e.moderator_id for e in AuditEntry.objects.all()}) == {mia.pk}

    # each player's next page shows their notice, until dismissed
    bernd_page.goto(asgi_server + "/")
    told = bernd_page.locator(".site-notice")
    assert "Your report was handled" in told.inner_text()
    assert "took action" in told.inner_text() and "Insults" not in told.inner_text()
    anna_page.goto(asgi_server + "/")
    told = anna_page.locator(".site-notice")
    assert "A moderator hid one of your messages" in told.inner_text()
    assert "you play like a landlubber" in told.inner_text()
    assert "Insults are not welcome here." in told.inner_text()
    screenshot(anna_page, "moderation-flow-notice-to-the-reported-player")
    with anna_page.expect_navigation():
        told.get_by_role("button", name="Dismiss").click()
    assert anna_page.locator(".site-notice").count() == 0
    assert anna_page.url == asgi_server + "/"

    # and the emails went out
    mail.outbox.clear()
    assert in_thread(send_notifications) >= 2
    sent = {m.to[0]: m for m in mail.outbox}
    assert sent["anna@example.org"].subject == "A moderator hid one of your messages"
    assert "Insults are not welcome here." in sent["anna@example.org"].body
    assert sent["bernd@example.org"].subject == "Your report was handled"
    for each in (anna_context, bernd_context, context):
        each.close()


@pytest.mark.parametrize("language", ["en", "de"])
@pytest.mark.parametrize("device", ["laptop", "phone"])
def test_the_console_and_a_notice_fit_a_laptop_and_a_phone(
    asgi_server,
    browser,
    game_between,  # noqa: F811
    django_user_model,
    screenshot,
    device,
    language,
):
    from moderation.services import do_handle_report

    viewport = {"laptop": LAPTOP, "phone": PHONE}[device]
    game, anna, bernd = game_between()
    for user in (anna, bernd):
        user.language = language
        in_thread(user.save)
    long_text = "Arrr " * 90 + "landlubber"  # a long message, shown whole
    report = in_thread(report_a_message, bernd, anna, game, long_text)
    mia = make_moderator(django_user_model, language=language)
    context, page = moderator_page(browser, asgi_server, mia, viewport)
    page.goto(asgi_server + "/moderation/")
    case = page.locator(f"#report-{report.pk}")
    assert long_text in case.locator(".chat-context li.reported").inner_text()
    screenshot(page, f"moderation-console-{device}-{language}")
    page.screenshot(path=str(SCREENSHOTS / f"moderation-console-{device}-{language}-viewport.png"))
    # nothing wider than the screen
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    in_thread(do_handle_report, report.pk, mia, "suspend", "Threats in the chat.", days=7)
    context.close()

    context = browser.new_context(**viewport)
    log_in_by_cookie(context, asgi_server, bernd)
    page = context.new_page()
    page.goto(asgi_server + "/")
    assert page.locator(".site-notice").count() == 1
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    screenshot(page, f"moderation-notice-{device}-{language}")
    context.close()
