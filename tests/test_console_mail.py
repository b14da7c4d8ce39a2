"""The console's emails (make run): a framed summary first, the confirmation link first."""

import io

from django.core.mail import EmailMultiAlternatives

from shanghaien.lib import console_mail


def sent(message) -> str:
    stream = io.StringIO()
    backend = console_mail.EmailBackend(stream=stream)
    assert backend.send_messages([message]) == 1
    return stream.getvalue()


def test_the_summary_names_the_recipient_the_subject_and_the_confirmation_link_first():
    body = (
        "Your game: http://127.0.0.1:8000/games/7/\n"
        "Stop these: http://127.0.0.1:8000/unsubscribe/abc/\n"
        "Confirm: http://127.0.0.1:8000/accounts/confirm-email/MQ:1a:" + "x" * 80 + "/.\n"
    )
    message = EmailMultiAlternatives("[Shanghaien] Confirm", body, "a@b", ["anna@example.com"])
    message.attach_alternative('<a href="http://127.0.0.1:8000/games/7/?a=1&amp;b=2">', "text/html")
    out = sent(message)
    head, _, rest = out.partition("Content-Type:")
    lines = head.strip().splitlines()
    assert lines[0] == "#" * 79 and lines[1].startswith("#### EMAIL ")
    assert lines[2:5] == [
        "## To:      anna@example.com",
        "## Subject: [Shanghaien] Confirm",
        "## Links:",
    ]
    assert lines[5:9] == [
        "##   http://127.0.0.1:8000/accounts/confirm-email/MQ:1a:" + "x" * 80 + "/",
        "##   http://127.0.0.1:8000/games/7/",
        "##   http://127.0.0.1:8000/games/7/?a=1&b=2",
        "##   http://127.0.0.1:8000/unsubscribe/abc/",
    ]
    assert "Subject: [Shanghaien] Confirm" in rest  # then the message as Django prints it


def test_an_email_without_links_says_so(settings):
    out = sent(EmailMultiAlternatives("Hello", "No links here.", "a@b", ["b@example.com"]))
    assert "## Links:   none" in out


def test_the_site_prints_emails_through_it_when_no_mail_server_is_set(settings):
    from shanghaien import settings as site

    if site.EMAIL_CONFIG["EMAIL_BACKEND"].endswith("console.EmailBackend"):
        assert site.EMAIL_BACKEND == "shanghaien.lib.console_mail.EmailBackend"
