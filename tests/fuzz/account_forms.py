"""What the fuzz tests post to the account pages (django-allauth's, the banner's, the
language chooser's)."""

from __future__ import annotations

from hypothesis import strategies as st

from .hostile_forms import NAMES, mostly, quoted

ADDRESSES = ["anna@example.org", "ANNA@example.org", "new@example.org", "", "not-an-email", "a@b"]
PASSWORDS = ["tavern-dice-42", "wrong", "", "x" * 5000]


def plan_account_form(draw, form: str) -> tuple[str, dict]:
    """allauth's pages: log in, sign up, password reset, the address page, the banner's
    resend button (its ``next`` included, an open redirect if it were followed blindly)."""
    if form == "login":
        return "/accounts/login/", {
            "login": mostly(st.sampled_from([*NAMES, *ADDRESSES])),
            "password": mostly(st.sampled_from(PASSWORDS)),
        }
    if form == "signup":
        return "/accounts/signup/", {
            "username": mostly(st.sampled_from([*NAMES, "newcomer", "x" * 151])),
            "email": mostly(st.sampled_from(ADDRESSES)),
            "password1": mostly(st.sampled_from(PASSWORDS)),
            "password2": mostly(st.sampled_from(PASSWORDS)),
        }
    if form == "reset":
        return "/accounts/password/reset/", {"email": mostly(st.sampled_from(ADDRESSES))}
    if form == "address":
        # allauth reads the name of the button pressed
        action = draw(st.sampled_from(["action_add", "action_send", "action_remove", "x"]))
        return "/accounts/email/", {
            "email": mostly(st.sampled_from(ADDRESSES)),
            action: st.just(""),
        }
    if form in ("block", "unblock"):
        name = draw(st.sampled_from(["bernd", "anna", "nobody", "x" * 151, "BERND"]))
        return f"/users/{quoted(name)}/{form}/", {}
    if form in ("follow", "unfollow"):  # the profile's and the friends page's buttons
        name = draw(st.sampled_from(["bernd", "anna", "nobody", "x" * 151, "BERND"]))
        return f"/users/{quoted(name)}/{form}/", {
            "next": mostly(
                st.sampled_from(["/friends/", "//evil.example/", "https://evil.example/", ""])
            ),
        }
    if form == "language":
        return "/language/", {
            "language": mostly(st.sampled_from(["de", "fr", "it", "en", "xx", "de-DE", ""])),
            "next": mostly(st.sampled_from(["/", "/rules/", "//evil.example/", "javascript:x"])),
        }
    return "/accounts/confirm/resend/", {
        "next": mostly(
            st.sampled_from(["/", "/users/anna/", "//evil.example/", "https://evil.example/"])
        ),
    }


ACCOUNT_FORMS = [
    "login",
    "signup",
    "reset",
    "address",
    "resend",
    "language",
    "block",
    "unblock",
    "follow",
    "unfollow",
]
