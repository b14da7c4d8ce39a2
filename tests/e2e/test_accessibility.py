"""An accessibility audit in Chromium: axe-core (npm ci puts it in node_modules/) runs on
every kind of page a player sees, at a desktop's size and a phone's, and finds nothing
serious or critical."""

import os
import random
from pathlib import Path

import pytest

from accounts.follows import do_follow
from games import rules
from games.models import Game
from games.services import invitations
from tests.helpers.games import play_on

from .helpers import confirm_address, in_thread, sign_up, wait_until_live
from .test_board_panel import drive

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

AXE = Path(__file__).resolve().parents[2] / "node_modules" / "axe-core" / "axe.min.js"
BLOCKING = ("serious", "critical")
DESKTOP = {"viewport": {"width": 1280, "height": 900}}
PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True}
TARGETS_SHOWN = 4


@pytest.fixture(scope="session")
def axe_script() -> Path:
    if not AXE.is_file():
        message = "axe-core not installed: npm ci"
        if os.environ.get("CI"):
            pytest.fail(f"{message} (the accessibility audit must run in CI)")
        pytest.skip(f"{message} — accessibility audit skipped")
    return AXE


def audit(page, axe_script: Path) -> list[dict]:
    """axe-core's violations on the page as it stands."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(axe_script))
    return page.evaluate(
        "async () => (await axe.run(document, {resultTypes: ['violations']})).violations"
        ".map(v => ({id: v.id, impact: v.impact, help: v.help,"
        " targets: v.nodes.map(n => n.target.join(' ')),"
        " why: [...new Set(v.nodes.map(n => [...n.any, ...n.all, ...n.none]"
        "  .map(c => c.message).join('; ')))]}))"
    )


def describe(found: dict[str, list[dict]]) -> str:
    lines = []
    for name, violations in found.items():
        for v in violations:
            targets = ", ".join(v["targets"][:TARGETS_SHOWN])
            more = len(v["targets"]) - TARGETS_SHOWN
            if more > 0:
                targets += f" (and {more} more)"
            lines.append(f"{name}: {v['id']} [{v['impact']}] {v['help']} — {targets}")
            lines.extend(f"    {why}" for why in v["why"][:TARGETS_SHOWN])
    return "\n".join(lines)


def new_game(inviter, invitee) -> Game:
    invitation = invitations.do_invite(inviter, to=invitee.username)
    return invitations.do_accept_invitation(invitation.pk, invitee)


def play_until(game, stop, seed=5, limit=2000) -> Game:
    """Random legal commands (never resigning) until ``stop(state)``."""
    rng = random.Random(seed)

    def anyhow(state, seat):
        legal = rules.legal_commands(state, seat)
        return rng.choice([c for c in legal if c["type"] not in ("resign", "abort")])

    drive(game, anyhow, stop, limit)
    game.refresh_from_db()
    return game


def at_round_end(state) -> bool:
    """A round has ended and the next has not begun: no die rolled or placed since the
    Shanghai (the board shows the round's report)."""
    return (
        state.last_round is not None
        and state.roll is None
        and not any(any(p.dice) for p in state.players)
    )


def placing(seat: int):
    """``seat`` has rolled in a later turn of the round and places a die (the controls)."""
    return lambda state: (
        state.turn == seat
        and state.phase == "placement"
        and any(any(p.dice) for p in state.players)
    )


def setup_games(player, bernd) -> dict[str, Game]:
    in_play = new_game(player, bernd)
    seat = next(s.seat for s in in_play.seats.all() if s.user_id == player.pk)
    in_play = play_until(in_play, placing(seat), seed=2)
    round_end = play_until(new_game(bernd, player), at_round_end)
    finished = play_on(new_game(player, bernd), seed=3)
    assert finished.status == Game.Status.FINISHED, finished.status
    invitations.do_invite(bernd, to=player.username)  # an invitation waiting in the lobby
    # open invitations with limits: one the player may accept, one dimmed with the reason
    invitations.do_invite(bernd, to=None, max_rating=3000, max_pace=14)
    invitations.do_invite(bernd, to=None, min_rating=2900)
    return {"in play": in_play, "round end": round_end, "finished": finished}


def check_guest(context, asgi_server, check) -> None:
    """A guest's pages: the board against the computer, its lobby and its sign-up."""
    from .test_play_computer import the_bots

    in_thread(the_bots)
    page = context.new_page()
    page.goto(asgi_server + "/")
    with page.expect_navigation():
        page.locator(".play-now-button").click()
    wait_until_live(page)
    page.wait_for_selector(".controls")
    check.page = page
    check("guest, the board against the computer")
    page.goto(asgi_server + "/")
    check("guest, lobby")
    page.goto(asgi_server + "/accounts/signup/")
    check("guest, sign-up")
    with page.expect_navigation():
        page.get_by_role("button", name="Log out").click()
    page.close()
    check.page = None


# names no other test signs up with: the session's mailbox keeps every test's emails
def running_tournament(users, player, name):
    """A groups-then-knock-out tournament of eight (the player among them) whose groups
    are over: its page shows the groups, their crosstables and the bracket."""
    from tests.tournaments.conftest import higher_seed_wins, play_stage, started

    others = [users.objects.create_user(f"{name}-t{i}", password="x") for i in range(7)]
    creator = users.objects.create_user(f"{name}-maker", password="x")
    tournament = started(creator, "groups_knockout", [player, *others], group_size=4)
    play_stage(tournament, higher_seed_wins)
    tournament.refresh_from_db()
    return tournament


@pytest.mark.parametrize(
    ("device", "name"), [(DESKTOP, "ines"), (PHONE, "paula")], ids=["desktop", "phone"]
)
def test_no_serious_or_critical_violations_on_any_page(
    axe_script, asgi_server, browser, django_user_model, device, name, screenshot
):
    found: dict[str, list[dict]] = {}
    # the site's Content-Security-Policy refuses inline scripts, axe-core's among them
    context = browser.new_context(**device, bypass_csp=True)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))

    def check(what: str) -> None:
        on = getattr(check, "page", None) or page
        found[what] = [v for v in audit(on, axe_script) if v["impact"] in BLOCKING]

    page.goto(asgi_server + "/")
    page.wait_for_selector('#home-board[data-drawn="true"]')
    check("home, with the board")
    check_guest(context, asgi_server, check)
    page.goto(asgi_server + "/accounts/login/")
    check("log-in")
    page.goto(asgi_server + "/accounts/signup/")
    check("sign-up")
    address = sign_up(page, asgi_server, name, confirm=False)
    check("lobby, new player with the email banner")
    confirm_address(page, asgi_server, address)

    player = django_user_model.objects.get(username=name)
    bernd = django_user_model.objects.create_user("bernd", password="x")
    games = in_thread(setup_games, player, bernd)

    page.goto(asgi_server + "/")
    page.wait_for_selector("main")
    check("lobby")
    screenshot(page, f"lobby-{name}")
    page.locator("details.advanced").first.locator("summary").click()
    check("lobby, the seed for the dice unfolded")
    screenshot(page, f"lobby-seed-unfolded-{name}")

    for state, game in games.items():
        page.goto(f"{asgi_server}/games/{game.pk}/")
        wait_until_live(page)
        if state == "round end":
            page.wait_for_selector("#board .round-end")
        if state == "finished":
            page.wait_for_selector('#board[data-status="finished"]')
        check(f"board, {state}")
        if state == "in play":
            page.wait_for_selector(".controls button[data-die]")
            page.locator(".overview-trigger.total-score").first.click()
            page.wait_for_selector(".overview:visible")
            check("board, in play, the points window open")
            page.keyboard.press("Escape")
            page.click("[data-report-game]")
            page.wait_for_selector("dialog.report-dialog[open]")
            check("board, the report dialog open")
            page.keyboard.press("Escape")
            page.fill("#note-text", "Keep the Spanish crew.\nTricks late.")
            page.click("#note button[type=submit]")
            page.wait_for_selector("#note .note-status:has-text('Note saved.')")
            check("board, the private note saved")

    page.goto(f"{asgi_server}/games/{games['finished'].pk}/replay/")
    page.wait_for_selector(".replay-controls")
    check("replay, start")
    page.keyboard.press("End")
    page.wait_for_selector('#replay[data-status="finished"]')
    check("replay, end")
    screenshot(page, f"replay-end-{name}")

    page.goto(asgi_server + "/games/finished/")
    check("finished games")
    page.goto(asgi_server + "/games/?opponent=bernd&result=zz&variant=standard")
    check("my games, filtered, a refused filter shown")
    page.goto(asgi_server + "/games/?status=active")
    check("my games under way")
    page.goto(asgi_server + "/live/")
    check("live games")
    page.goto(asgi_server + "/rules/")
    check("rules")
    page.goto(f"{asgi_server}/users/{name}/")
    check("profile, one's own")
    page.goto(asgi_server + "/settings/")
    page.wait_for_selector("#devices .push-state:not([data-push-state='unknown'])")
    check("settings")
    screenshot(page, f"settings-{name}")
    page.goto(asgi_server + "/users/bernd/")
    check("profile, another player's")
    page.goto(asgi_server + "/ranking/")
    check("ranking")
    page.goto(asgi_server + "/players/?q=b")
    check("players found")
    page.goto(asgi_server + "/players/?q=%25")
    check("players, a refused search")
    in_thread(do_follow, player, "bernd")
    page.goto(asgi_server + "/friends/")
    check("friends")
    page.goto(asgi_server + "/fairness/")
    check("fair dice")
    screenshot(page, f"fairness-{name}")

    # the tournaments: the list, the form refusing what is wrong, and one running with
    # its groups, crosstables and knock-out bracket
    running = in_thread(running_tournament, django_user_model, player, name)
    page.goto(asgi_server + "/tournaments/")
    check("tournaments")
    page.goto(asgi_server + "/tournaments/new/")
    page.fill("#id_name", "")
    page.fill("#id_min_rating", "1700")
    page.fill("#id_max_rating", "1500")
    page.click(".tournament-form button[type=submit]")
    page.wait_for_selector(".field-error")
    check("a new tournament, the form with its errors")
    page.goto(f"{asgi_server}/tournaments/{running.pk}/")
    page.wait_for_selector(".bracket")
    check("a running tournament: groups, crosstables, bracket")
    screenshot(page, f"tournament-{name}")
    page.goto(asgi_server + "/tournaments/rules/")
    check("tournament rules")

    # a moderators' notice at the top of a page, and the moderators' console
    from accounts.notices import give_notice

    from .test_moderation_console import make_moderator, moderator_page, report_a_message

    in_thread(give_notice, player, "A word from the moderators", "Line one.\nLine two.")
    page.goto(asgi_server + "/ranking/")
    check("a page with a moderators' notice")
    in_thread(report_a_message, bernd, player, games["in play"])
    moderator = make_moderator(django_user_model, name=f"mod-{name}")
    moderators, check.page = moderator_page(
        browser, asgi_server, moderator, device, bypass_csp=True
    )
    check.page.goto(asgi_server + "/moderation/")
    check("moderators' console")
    moderators.close()
    check.page = None

    context.close()
    blocking = {what: v for what, v in found.items() if v}
    assert not blocking, "serious or critical accessibility violations:\n" + describe(blocking)
    assert errors == []
