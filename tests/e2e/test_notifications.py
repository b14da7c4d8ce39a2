"""Emails on by default, in Chromium on a phone: a player who just signed up finds the
turn and invitation emails ticked in their preferences, gets the invitation email with
its unsubscribe link, and that link turns invitation emails off in one tap (turn emails
stay on)."""

import re

import pytest
from django.core import mail

from .helpers import in_thread, sign_up

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True}


def test_a_new_player_is_emailed_and_unsubscribes_in_one_tap(
    asgi_server, browser, django_user_model, screenshot, settings
):
    from games.notify.preferences import chosen
    from games.notify.send import send_notifications
    from games.services import invitations

    settings.SITE_URL = asgi_server  # the links in the emails point at the test server
    context = browser.new_context(**PHONE)
    page = context.new_page()
    address = sign_up(page, asgi_server, "nora")
    nora = in_thread(django_user_model.objects.get, username="nora")
    page.goto(f"{asgi_server}/settings/")
    for name in ("email_on_turn", "email_invitations"):
        assert page.is_checked(f"input[name={name}]"), name  # nothing to do to be told

    olga = in_thread(django_user_model.objects.create_user, "olga", password="x")
    in_thread(invitations.do_invite, olga, to="nora")
    mail.outbox.clear()
    assert in_thread(send_notifications) >= 1
    email = next(m for m in mail.outbox if m.to == [address])
    assert email.subject == "olga invites you to a game of Shanghaien"
    link = re.search(r"(http://\S+/accounts/unsubscribe/\S+/)", email.body).group(1)
    assert email.extra_headers["List-Unsubscribe"] == f"<{link}>"

    page.goto(link)  # from the phone's mail app
    screenshot(page, "unsubscribe-phone")
    page.click("#unsubscribe button[type=submit]")
    page.wait_for_selector("#unsubscribe [role=status]")
    nora.refresh_from_db()
    assert (chosen(nora, "email_invitations"), chosen(nora, "email_on_turn")) == (False, True)
    context.close()
