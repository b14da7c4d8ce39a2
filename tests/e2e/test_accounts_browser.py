"""Accounts in Chromium: signing up and confirming the address by the emailed link, logging
out and in, and a staff member setting up an authenticator app before the admin opens."""

import base64
import hashlib
import hmac
import struct
import time

import pytest

from .helpers import (
    PASSWORD,
    assert_lobby_without_banner,
    in_thread,
    open_confirmation_link,
    sign_up,
)

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def totp(secret: str, at: float | None = None, *, step: int = 30, digits: int = 6) -> str:
    """The code an authenticator app shows for ``secret`` (base32) at ``at`` (RFC 6238:
    HOTP of the number of ``step``-second periods since the epoch, HMAC-SHA1)."""
    key = base64.b32decode(secret.upper() + "=" * (-len(secret) % 8))
    counter = int((time.time() if at is None else at) // step)
    digest = hmac.new(key, struct.pack(">Q", counter), hashlib.sha1).digest()
    offset = digest[-1] & 0x0F
    value = int.from_bytes(digest[offset : offset + 4], "big") & 0x7FFFFFFF
    return str(value % 10**digits).zfill(digits)


def test_totp_gives_the_codes_of_rfc_6238():
    # RFC 6238, appendix B: the SHA-1 seed "12345678901234567890", 8-digit codes
    secret = base64.b32encode(b"12345678901234567890").decode()
    assert totp(secret, 59, digits=8) == "94287082"
    assert totp(secret, 1111111109, digits=8) == "07081804"
    assert totp(secret, 20000000000, digits=8) == "65353130"
    assert totp(secret, 59) == "287082"


def fresh_totp(secret: str) -> str:
    """A code with some seconds of its period left (the site allows no drift)."""
    if 30 - time.time() % 30 < 4:
        time.sleep(30 - time.time() % 30 + 0.5)
    return totp(secret)


def email_verified(address: str) -> bool:
    from allauth.account.models import EmailAddress

    return in_thread(lambda: EmailAddress.objects.get(email=address).verified)


def log_in(page, base_url: str, login: str, password: str) -> None:
    page.fill("#id_login", login)
    page.fill("#id_password", password)
    with page.expect_navigation():
        page.locator("main").get_by_role("button", name="Log in").click()


def test_a_new_player_confirms_the_address_by_the_emailed_link(
    asgi_server, page, mailbox, screenshot
):
    address = sign_up(page, asgi_server, "ottilie", mailbox, confirm=False)

    banner = page.locator("div.email-banner")
    assert banner.count() == 1
    assert address in banner.inner_text()
    assert banner.get_by_role("button", name="Send the link again").is_visible()
    assert page.locator(".site-header .who").inner_text() == "ottilie"
    screenshot(page, "lobby-email-banner")
    assert email_verified(address) is False

    message = mailbox.newest(address)
    assert message["Subject"].startswith("[Shanghaien] ")
    button = open_confirmation_link(page, asgi_server, address, mailbox)
    assert address in page.inner_text("main")
    screenshot(page, "confirm-email")
    assert email_verified(address) is False  # opening the link confirms nothing

    with page.expect_navigation():
        button.click()
    assert page.url.rstrip("/") == asgi_server, page.url
    assert_lobby_without_banner(page, asgi_server)
    assert email_verified(address) is True


def test_a_player_logs_out_and_back_in(asgi_server, page, screenshot):
    sign_up(page, asgi_server, "ludwig")

    with page.expect_navigation():
        page.locator(".site-header").get_by_role("button", name="Log out").click()
    assert page.url.rstrip("/") == asgi_server, page.url
    header = page.locator(".site-header")
    assert header.get_by_role("link", name="Log in").is_visible()
    assert header.locator(".who").count() == 0

    page.goto(asgi_server + "/accounts/login/")
    log_in(page, asgi_server, "ludwig", "not-the-password")
    assert "/accounts/login/" in page.url
    error = page.locator("main .error")
    assert error.count() == 1 and error.inner_text(), page.inner_text("main")
    screenshot(page, "login-wrong-password")

    log_in(page, asgi_server, "ludwig", PASSWORD)
    assert page.url.rstrip("/") == asgi_server, page.url
    assert page.locator(".site-header .who").inner_text() == "ludwig"
    assert page.locator("div.email-banner").count() == 0  # confirmed at sign-up


def test_staff_set_up_an_authenticator_app_before_the_admin_opens(
    asgi_server, page, django_user_model, screenshot
):
    from allauth.account.models import EmailAddress
    from allauth.mfa.models import Authenticator
    from django.contrib.auth.hashers import PBKDF2PasswordHasher

    def make_staff():
        # The tests hash with MD5 (tests/conftest.py); the server knows only its own
        # hashers, so the password is hashed as the server would.
        user = django_user_model.objects.create_user(
            "keeper", email="keeper@example.org", is_staff=True
        )
        hasher = PBKDF2PasswordHasher()
        user.password = hasher.encode(PASSWORD, hasher.salt())
        user.save(update_fields=["password"])
        EmailAddress.objects.create(
            user=user, email="keeper@example.org", verified=True, primary=True
        )
        return user

    keeper = in_thread(make_staff)

    page.goto(asgi_server + "/accounts/login/")
    log_in(page, asgi_server, "keeper", PASSWORD)
    assert page.url.rstrip("/") == asgi_server, page.inner_text("main")

    page.goto(asgi_server + "/admin/")
    # why, on the set-up page itself: the password typed at the log in is not asked again
    assert "set up an authenticator app" in page.inner_text(".messages")
    assert "/accounts/2fa/totp/activate/" in page.url, page.url
    secret = page.input_value("#authenticator_secret")
    assert len(secret) >= 16, secret
    screenshot(page, "staff-totp-setup")

    page.fill("#id_code", fresh_totp(secret))
    with page.expect_navigation():
        page.locator("main").get_by_role("button", name="Activate").click()
    assert "/accounts/2fa/totp/activate/" not in page.url, page.inner_text("main")
    assert in_thread(
        lambda: Authenticator.objects.filter(user=keeper, type=Authenticator.Type.TOTP).exists()
    )

    # the recovery codes, then on to the admin they were going to
    assert "/accounts/2fa/recovery-codes/" in page.url, page.url
    with page.expect_navigation():
        page.get_by_role("link", name="I have kept my recovery codes: continue").click()
    assert page.url == asgi_server + "/admin/", page.url
    assert page.title().startswith("Site administration"), page.title()
    screenshot(page, "admin-index")
