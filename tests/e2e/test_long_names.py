"""Names of the longest length a username may have (150 characters), in Chromium on a
phone: every page a player sees fits the screen's width, and every name printed stays in
its box, cut short with an ellipsis, the full name in its title."""

import random

import pytest

from games.models import Game
from games.services import invitations

from .conftest import SCREENSHOTS
from .helpers import PASSWORD, in_thread, log_in_by_cookie, wait_until_live
from .test_board_panel import anyhow_without_tricks, drive

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

# No space, hyphen or other place to break a line in either.
LONG_A = ("WilhelminaMustermann" * 8)[:150]
LONG_B = ("Bartholomaeus_von_Hohenzollern" * 5)[:150]
PHONES = (360, 390)

# Every visible element whose text holds a name and sticks out of the viewport, and the
# page's own width (nothing may scroll sideways).
MEASURE = """([prefixes, phone]) => {
  // A phone's layout viewport widens to what sticks out: measure against the phone's width.
  const width = Math.min(window.innerWidth, phone);
  const wide = [];
  // (a name inside a visually hidden box, clipped to nothing, is heard, not seen)
  const clipped = (el) => {
    for (; el; el = el.parentElement) if (getComputedStyle(el).clip !== "auto") return true;
    return false;
  };
  for (const el of document.body.querySelectorAll("*")) {
    if (!prefixes.some((p) => el.textContent.includes(p))) continue;
    if (clipped(el)) continue;
    const box = el.getBoundingClientRect();
    if (!box.width || !box.height || getComputedStyle(el).visibility === "hidden") continue;
    if (box.left < -1 || box.right > width + 1) {
      const id = el.id ? "#" + el.id : "";
      const classes = typeof el.className === "string" ? el.className.trim().split(/\\s+/) : [];
      const cls = classes.filter(Boolean).map((c) => "." + c).join("");
      const where = `${Math.round(box.left)}..${Math.round(box.right)}`;
      wide.push(`${el.tagName.toLowerCase()}${id}${cls} ${where}`);
    }
  }
  return { scroll: document.documentElement.scrollWidth, inner: width, wide: wide.slice(0, 8) };
}"""


def sign_up_with_long_name(browser, base_url, username) -> None:
    """The sign-up form takes a name of 150 characters, and the log-in form takes it
    back (sign-up asks to confirm the address and logs nobody in)."""
    context = browser.new_context(viewport={"width": 360, "height": 740})
    page = context.new_page()
    page.goto(base_url + "/accounts/signup/")
    page.fill("#id_username", username)
    page.fill("#id_email", "longest-name@example.org")
    page.fill("#id_password1", PASSWORD)
    page.fill("#id_password2", PASSWORD)
    with page.expect_navigation():
        page.click("main button[type=submit]")
    assert page.url == base_url + "/accounts/confirm-email/", page.inner_text("main")
    page.goto(base_url + "/accounts/login/")
    page.fill("#id_login", username)
    page.fill("#id_password", PASSWORD)
    with page.expect_navigation():
        page.click("main button[type=submit]")
    assert page.url.rstrip("/") == base_url, page.inner_text("main")
    context.close()


def new_game(sender, receiver):
    invitation = in_thread(invitations.do_invite, sender, to=receiver.username)
    return in_thread(invitations.do_accept_invitation, invitation.pk, receiver)


def at_a_round_end(state) -> bool:
    return (
        state.last_round is not None
        and state.roll is None
        and not any(sum(p.dice) for p in state.players)
    )


@pytest.fixture
def players(asgi_server, browser, django_user_model):
    sign_up_with_long_name(browser, asgi_server, LONG_A)
    anna = django_user_model.objects.get(username=LONG_A)
    bernd = django_user_model.objects.create_user(LONG_B, password="x")
    return anna, bernd


@pytest.fixture
def games(players):
    anna, bernd = players
    in_play = new_game(anna, bernd)
    in_thread(drive, in_play, anyhow_without_tricks(random.Random(4)), lambda s: s.round >= 2)
    in_thread(
        drive,
        in_play,
        anyhow_without_tricks(random.Random(5)),
        lambda s: sum(s.players[0].dice) > 2,
    )
    round_end = new_game(anna, bernd)
    in_thread(drive, round_end, anyhow_without_tricks(random.Random(6)), at_a_round_end)
    final = new_game(anna, bernd)
    in_thread(drive, final, anyhow_without_tricks(random.Random(7)), lambda s: s.finished)
    final.refresh_from_db()
    assert final.status == Game.Status.FINISHED
    # the lobby's invitations: one received, one open to anyone
    in_thread(invitations.do_invite, bernd, to=anna.username)
    in_thread(invitations.do_invite, bernd)
    return {"in play": in_play, "round end": round_end, "final": final}


def check(page, where: str, problems: list, *, names=(LONG_A, LONG_B), titled=True) -> dict:
    phone = page.viewport_size["width"]
    found = page.evaluate(MEASURE, [[n[:40] for n in names], phone])
    if found["scroll"] > found["inner"]:
        problems.append(f"{where}: the page is {found['scroll']} px wide at {found['inner']} px")
    if found["wide"]:
        problems.append(f"{where}: names wider than {found['inner']} px: {found['wide']}")
    if titled:
        full = [n for n in names if page.locator(f'.player-name[title="{n}"]').count()]
        if not full:
            problems.append(f"{where}: no name with its full name in its title")
    return found


def open_board(page, base_url, game):
    page.goto(f"{base_url}/games/{game.pk}/")
    page.wait_for_selector("#board .table, #board .score")
    wait_until_live(page)


@pytest.mark.parametrize("width", PHONES)
def test_long_names_fit_every_page_on_a_phone(
    asgi_server, browser, players, games, width, screenshot
):
    anna, bernd = players
    problems: list[str] = []
    widths: dict[str, int] = {}
    device = {"viewport": {"width": width, "height": 740}, "has_touch": True, "is_mobile": True}

    # logged out: home, sign-up, log in, rules and the ranking
    context = browser.new_context(**device)
    page = context.new_page()
    for where, path in [
        ("home", "/"),
        ("sign-up", "/accounts/signup/"),
        ("log in", "/accounts/login/"),
        ("ranking (logged out)", "/ranking/"),
    ]:
        page.goto(asgi_server + path)
        widths[where] = check(page, where, problems, titled=where.startswith("ranking"))["scroll"]
    context.close()

    context = browser.new_context(**device)
    log_in_by_cookie(context, asgi_server, anna)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    for where, path in [
        ("lobby", "/"),
        ("rules", "/rules/"),
        ("finished games", "/games/finished/"),
        ("own profile", f"/users/{anna.username}/"),
        ("opponent's profile", f"/users/{bernd.username}/"),
        ("settings", "/settings/"),
        ("ranking", "/ranking/"),
    ]:
        page.goto(asgi_server + path)
        widths[where] = check(page, where, problems)["scroll"]
        if where == "lobby" and width == 360:
            screenshot(page, "long-name-lobby-phone")
    # the preferences, on the settings page: saved, and the page they come back to
    page.goto(f"{asgi_server}/settings/")
    with page.expect_navigation():
        page.locator("form#preferences").evaluate("form => form.requestSubmit()")
    assert page.locator(".messages").count() == 1
    widths["preferences saved"] = check(page, "preferences saved", problems)["scroll"]

    open_board(page, asgi_server, games["in play"])
    widths["board in play"] = check(page, "board in play", problems)["scroll"]
    if width == 360:
        screenshot(page, "long-name-board-phone")
    open_board(page, asgi_server, games["round end"])
    page.wait_for_selector("#board .round-end")
    widths["round end"] = check(page, "round end", problems)["scroll"]
    if width == 360:
        screenshot(page, "long-name-round-end-phone")
    open_board(page, asgi_server, games["final"])
    page.wait_for_selector("#board .result")
    widths["final score"] = check(page, "final score", problems)["scroll"]
    if width == 360:
        screenshot(page, "long-name-final-score-phone")
        page.locator("#board .result").screenshot(
            path=str(SCREENSHOTS / "long-name-result-phone.png")
        )
    for trigger in ("mine", "points-me"):  # the windows the score table opens
        page.locator(f'#board [data-trigger="{trigger}"]').evaluate("button => button.click()")
        page.wait_for_selector(".overview:not([hidden])")
        widths[f"final score, {trigger} window"] = check(page, trigger, problems)["scroll"]
        page.keyboard.press("Escape")

    page.goto(f"{asgi_server}/games/{games['final'].pk}/replay/")
    page.wait_for_selector(".replay-controls")
    widths["replay, first step"] = check(page, "replay, first step", problems)["scroll"]
    page.keyboard.press("End")
    page.wait_for_selector('#replay[data-status="finished"]')
    widths["replay, last step"] = check(page, "replay, last step", problems)["scroll"]
    if width == 360:
        screenshot(page, "long-name-replay-phone")

    print(f"\nwidths at {width} px: {widths}")
    assert not problems, "\n".join(problems)

    # the header's link to the player's profile: cut short on screen, not in its text
    page.goto(asgi_server + "/")
    who = page.locator(".site-header .who")
    assert who.inner_text().strip() == anna.username
    assert who.locator(f'.player-name[title="{anna.username}"]').count() == 1
    assert who.bounding_box()["width"] < width
    assert errors == []
    context.close()
