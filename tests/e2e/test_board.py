"""The board in Chromium: whole games played only by clicking, a phone tapping, overviews."""

import json
import random
import re

import pytest

from games.services import invitations

from .helpers import (
    api_command,
    board,
    in_thread,
    log_in_by_cookie,
    sign_up,
    version,
    wait_for_version_above,
    wait_until_live,
)

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def act(page, rng, shots, screenshot):
    """Make one click of the player on turn; return True if it sent a command."""
    state = board(page)
    if state["phase"] == "turn":
        if page.locator(".round-end").count() and "round-end" not in shots:
            shots.add("round-end")
            screenshot(page, "round-end-arrows")
        roll = page.locator('[data-action="roll"]')
        shanghai = page.locator('[data-action="shanghai"]')
        if shanghai.is_enabled() and (not roll.is_enabled() or rng.random() < 0.7):
            shanghai.click()
        else:
            roll.click()
    elif state["phase"] == "direction":
        if "captains" not in shots:
            shots.add("captains")
            screenshot(page, "round-start-captains")
        page.locator(f'[data-one-at="{rng.choice(["left", "right"])}"]').click()
    elif state["phase"] == "placement":
        halves = page.locator(".trick-card .half:enabled")
        if halves.count() and rng.random() < 0.6:
            if "tricks" not in shots:
                shots.add("tricks")
                screenshot(page, "pending-roll-with-tricks")
            halves.nth(rng.randrange(halves.count())).click()
            choices = page.locator(".chooser button[data-choice]")
            if choices.count():
                choices.nth(rng.randrange(choices.count())).click()
        else:
            dice = page.locator("button[data-die]:enabled")
            dice.nth(rng.randrange(dice.count())).click()


def test_two_players_sign_up_invite_and_play_a_whole_game_by_clicking(
    asgi_server, browser, screenshot
):
    contexts = [browser.new_context(viewport={"width": 1280, "height": 900}) for _ in range(2)]
    anna, bernd = (context.new_page() for context in contexts)
    errors = []
    for page in (anna, bernd):
        page.on("pageerror", lambda error: errors.append(str(error)))
    sign_up(anna, asgi_server, "anna")
    sign_up(bernd, asgi_server, "bernd")

    # bernd waits in the lobby; anna's invitation appears there without a reload.
    anna.fill("#id_to", "bernd")
    anna.check("#id_extra_wild")
    with anna.expect_navigation():
        anna.click("text=Send invitation")
    bernd.wait_for_selector("text=anna invites you", timeout=10000)
    with bernd.expect_navigation():
        bernd.click(".invitation >> text=Accept")
    assert "/games/" in bernd.url
    # Both browsers sent a seed of their own for the dice, and bernd's accept form was
    # drawn by the lobby after the page loaded (docs/fairness.md).
    from games.models import Game

    seeds = in_thread(lambda: Game.objects.get(pk=int(bernd.url.split("/")[-2])).client_seeds)
    assert all(re.fullmatch(r"[0-9a-f]{32}", seed) for seed in seeds) and seeds[0] != seeds[1]
    anna.wait_for_selector("a:has-text('Open game')", timeout=10000)  # the lobby updated live
    with anna.expect_navigation():
        anna.click("a:has-text('Open game')")
    for page in (anna, bernd):
        wait_until_live(page)
        page.evaluate("window.notReloaded = true")

    rng, shots = random.Random(7), set()
    for _ in range(600):
        if board(anna)["status"] == "finished" and board(bernd)["status"] == "finished":
            break
        actor, other = (anna, bernd) if board(anna)["turn"] == "me" else (bernd, anna)
        assert board(actor)["turn"] == "me", "neither board says it is my turn"
        before = version(actor)
        act(actor, rng, shots, screenshot)
        wait_for_version_above(actor, before)
        new = version(actor)
        other.wait_for_function(
            "v => Number(document.getElementById('board').dataset.version) >= v", arg=new
        )
    else:
        raise AssertionError("the game did not end")

    assert errors == []
    assert {"captains", "tricks", "round-end"} <= shots
    for page in (anna, bernd):
        assert page.evaluate("window.notReloaded") is True  # every update came by websocket
        page.wait_for_selector(".result")
    screenshot(anna, "final-score")
    anna_totals = anna.locator(".result .total").all_inner_texts()
    bernd_totals = bernd.locator(".result .total").all_inner_texts()
    assert anna_totals == list(reversed(bernd_totals))
    assert "Game over" in anna.inner_text(".status")
    # the rated game's rating changes arrive with the final state, each from its side
    anna_ratings = anna.inner_text(".status .ratings")
    bernd_ratings = bernd.inner_text(".status .ratings")
    assert anna_ratings.startswith("Ratings: you 1500 → ") and " · bernd 1500 → " in anna_ratings
    assert bernd_ratings.startswith("Ratings: you 1500 → ") and " · anna 1500 → " in bernd_ratings
    for context in contexts:
        context.close()


@pytest.fixture
def game_between(django_user_model):
    def make(extra_wild=False):
        anna = django_user_model.objects.create_user("anna", password="x")
        bernd = django_user_model.objects.create_user("bernd", password="x")
        invitation = in_thread(invitations.do_invite, anna, to="bernd", extra_wild=extra_wild)
        game = in_thread(invitations.do_accept_invitation, invitation.pk, bernd)
        return game, anna, bernd

    return make


def phone(browser):
    return browser.new_context(
        viewport={"width": 360, "height": 740}, has_touch=True, is_mobile=True
    )


def test_a_phone_plays_a_few_turns_by_tapping(asgi_server, browser, game_between, screenshot):
    game, anna, bernd = game_between()
    contexts, pages = [], {}
    for user in (anna, bernd):
        context = phone(browser)
        log_in_by_cookie(context, asgi_server, user)
        page = context.new_page()
        page.goto(f"{asgi_server}/games/{game.pk}/")
        wait_until_live(page)
        contexts.append(context)
        pages[user.username] = page
    rng = random.Random(3)
    for turn in range(12):
        actor = next(p for p in pages.values() if board(p)["turn"] == "me")
        before = version(actor)
        state = board(actor)["phase"]
        if state == "turn":
            actor.locator('[data-action="roll"]').tap()
        elif state == "direction":
            actor.locator('[data-one-at="left"]').tap()
        else:
            actor.locator("button[data-die]:enabled").nth(rng.randrange(2)).tap()
        wait_for_version_above(actor, before)
        for page in pages.values():  # both boards have the move before the next turn
            wait_for_version_above(page, version(actor) - 1)
        if turn == 4:
            screenshot(actor, "phone-board")
    for page in pages.values():
        assert page.evaluate("document.documentElement.scrollWidth") <= 360
        assert version(page) >= 14
    for context in contexts:
        context.close()


def test_overview_windows_open_on_hover_and_on_tap(asgi_server, browser, game_between, screenshot):
    game, anna, _ = game_between()
    desktop = browser.new_context(viewport={"width": 1280, "height": 900})
    log_in_by_cookie(desktop, asgi_server, anna)
    page = desktop.new_page()
    page.goto(f"{asgi_server}/games/{game.pk}/")
    wait_until_live(page)
    window = page.locator("#overview-to-come")
    assert window.is_hidden()
    page.hover('[data-overview="to-come"]')
    window.wait_for(state="visible")
    assert "Dirty tricks" in window.inner_text()
    screenshot(page, "overview-hover")
    page.mouse.move(5, 5)
    window.wait_for(state="hidden")
    page.hover('[data-overview="points"]')
    page.locator("#overview-points").wait_for(state="visible")
    desktop.close()

    touch = phone(browser)
    log_in_by_cookie(touch, asgi_server, anna)
    page = touch.new_page()
    page.goto(f"{asgi_server}/games/{game.pk}/")
    wait_until_live(page)
    page.locator('[data-trigger="mine"]').tap()
    page.locator("#overview-mine").wait_for(state="visible")
    assert page.get_attribute('[data-trigger="mine"]', "aria-expanded") == "true"
    screenshot(page, "overview-tap")
    page.locator("#overview-mine").tap()  # tapping the window closes it
    page.locator("#overview-mine").wait_for(state="hidden")
    touch.close()


def open_board(browser, base_url, user, game):
    context = browser.new_context()
    log_in_by_cookie(context, base_url, user)
    page = context.new_page()
    return context, page


def relay(page, dropped):
    """Route the game socket through the test: it can drop pushes, cut the line, or
    (with dropped["refuse"]) turn new connections away as an unreachable server would."""
    sockets = []

    def handler(ws):
        if dropped.get("refuse"):
            ws.close()
            return
        server = ws.connect_to_server()
        sockets.append(ws)

        def from_server(message):
            if json.loads(message).get("type") == "state":
                if dropped["on"]:
                    dropped["count"] += 1
                    return
                dropped["passed"] = dropped.get("passed", 0) + 1
            ws.send(message)

        server.on_message(from_server)
        ws.on_message(lambda message: server.send(message))

    page.route_web_socket(re.compile(r"/ws/games/\d+/$"), handler)
    return sockets


def test_a_rejected_command_shows_its_message_and_the_board_resyncs(
    asgi_server, browser, game_between
):
    game, anna, bernd = game_between()
    mover = anna if game.to_move_id == anna.pk else bernd
    context, page = open_board(browser, asgi_server, mover, game)
    dropped = {"on": False, "count": 0}
    relay(page, dropped)
    page.goto(f"{asgi_server}/games/{game.pk}/")
    wait_until_live(page)
    page.wait_for_selector('#board[data-turn="me"] [data-action="roll"]:enabled')
    # The board first shows the state embedded in the page; the socket's own first state
    # may come later (a slow server): only the push after it is the one to drop.
    for _ in range(200):
        if dropped.get("passed"):
            break
        page.wait_for_timeout(50)
    dropped["on"] = True
    api_command(asgi_server, mover, game, {"type": "roll"}, "elsewhere")
    for _ in range(200):
        if dropped["count"]:
            break
        page.wait_for_timeout(50)
    assert dropped["count"], "the push was never seen"
    dropped["on"] = False
    assert version(page) == game.version  # the board missed the push: it is stale
    page.click('[data-action="roll"]')
    alert = page.locator("#board .alert")
    alert.wait_for(state="visible")
    assert "The game is at version 3, not 2" in alert.inner_text()
    wait_for_version_above(page, game.version)  # it asked for a sync and got the new state
    assert board(page)["phase"] in ("direction", "placement")
    context.close()


def test_a_dropped_connection_reconnects_and_catches_up(asgi_server, browser, game_between):
    game, anna, bernd = game_between()
    mover = anna if game.to_move_id == anna.pk else bernd
    watcher = bernd if mover == anna else anna
    context, page = open_board(browser, asgi_server, watcher, game)
    line = {"on": False, "count": 0}
    sockets = relay(page, line)
    page.goto(f"{asgi_server}/games/{game.pk}/")
    wait_until_live(page)
    line["refuse"] = True  # the server unreachable for a while: the board says so
    sockets[0].close()
    page.wait_for_selector('#board[data-connection="closed"] .connection')
    assert page.inner_text("#board .connection") == "Reconnecting…"
    line["refuse"] = False  # back: the next attempt gets through
    api_command(asgi_server, mover, game, {"type": "roll"}, "away")
    wait_for_version_above(page, game.version)
    page.wait_for_selector("#board .connection", state="detached")
    assert board(page)["connection"] == "open"
    assert len(sockets) >= 2
    context.close()


def test_extra_day_no_abort_rematch_and_resign_from_the_board(asgi_server, browser, game_between):
    game, anna, bernd = game_between()
    pages, contexts = {}, []
    for user in (anna, bernd):
        context = browser.new_context()
        log_in_by_cookie(context, asgi_server, user)
        page = context.new_page()
        page.on("dialog", lambda dialog: dialog.accept())
        page.goto(f"{asgi_server}/games/{game.pk}/")
        wait_until_live(page)
        contexts.append(context)
        pages[user.username] = page
    mover = "anna" if game.to_move_id == anna.pk else "bernd"
    waiter = "bernd" if mover == "anna" else "anna"
    assert "Time left to move: 2 days" in pages[mover].inner_text("#board .status")

    # The waiting player gives one more day; both boards show it without a reload.
    assert pages[mover].locator("[data-extend]").count() == 0
    pages[waiter].click("[data-extend]")
    for page in pages.values():
        page.wait_for_selector("text=one extra day given")
    assert pages[waiter].locator("[data-extend]").count() == 0

    # The game is dealt: no board offers to call it off; leaving is resigning.
    for page in pages.values():
        assert page.locator('[data-action="abort"]').count() == 0
        assert page.locator('[data-action="resign"]').count() == 1
    pages[waiter].click('[data-action="resign"]')
    for page in pages.values():
        page.wait_for_selector("text=(by resignation)")

    # A rematch: offered on one board, accepted with one click on the other.
    pages["anna"].click("[data-rematch]")
    pages["anna"].wait_for_selector("text=Rematch offered")
    pages["bernd"].wait_for_selector("[data-accept-rematch]")
    with pages["bernd"].expect_navigation():
        pages["bernd"].click("[data-accept-rematch]")
    new_url = pages["bernd"].url
    assert new_url != f"{asgi_server}/games/{game.pk}/"
    pages["anna"].wait_for_selector("text=Go to the rematch")
    with pages["anna"].expect_navigation():
        pages["anna"].click("text=Go to the rematch")
    assert pages["anna"].url == new_url

    # Resigning hands the win to the other player, on both boards.
    for page in pages.values():
        wait_until_live(page)
    pages["bernd"].click('[data-action="resign"]')
    pages["bernd"].wait_for_selector("text=Game over: anna won (by resignation)")
    pages["anna"].wait_for_selector("text=Game over: You won (by resignation)")
    for context in contexts:
        context.close()


def test_chat_shows_html_as_text_and_a_message_can_be_reported(asgi_server, browser, game_between):
    from moderation.models import Report

    game, anna, bernd = game_between()
    pages, contexts = {}, []
    for user in (anna, bernd):
        context = browser.new_context()
        log_in_by_cookie(context, asgi_server, user)
        page = context.new_page()
        page.goto(f"{asgi_server}/games/{game.pk}/")
        wait_until_live(page)
        contexts.append(context)
        pages[user.username] = page
    pages["anna"].fill("#chat-text", "<b>fair winds</b> & good luck")
    pages["anna"].press("#chat-text", "Enter")
    line = pages["bernd"].locator(".messages-list li.opponent .text")
    line.wait_for()
    assert line.inner_text() == "<b>fair winds</b> & good luck"
    assert pages["bernd"].locator(".messages-list b").count() == 0  # no markup was made
    pages["bernd"].click("[data-report-message]")
    pages["bernd"].check(".report-dialog input[value=abuse]")
    pages["bernd"].fill("#report-details", "rude")
    pages["bernd"].click(".report-dialog button[type=submit]")
    pages["bernd"].wait_for_selector(
        ".messages-list li.opponent >> text=the moderators will look at it"
    )
    assert in_thread(lambda: Report.objects.get().reason) == "Abuse or insults: rude"
    for context in contexts:
        context.close()


def test_a_chat_line_typed_while_offline_is_kept_until_the_line_is_back(
    asgi_server, browser, game_between
):
    game, anna, _ = game_between()
    context, page = open_board(browser, asgi_server, anna, game)
    line = {"on": False, "count": 0, "refuse": False}
    sockets = relay(page, line)
    page.goto(f"{asgi_server}/games/{game.pk}/")
    wait_until_live(page)
    line["refuse"] = True  # the server cannot be reached: the board keeps retrying
    sockets[0].close()
    page.wait_for_selector('#board[data-connection="closed"]')
    page.fill("#chat-text", "still there?")
    page.press("#chat-text", "Enter")
    alert = page.locator("#board .alert")
    alert.wait_for(state="visible")
    assert "Not connected" in alert.inner_text()
    assert page.input_value("#chat-text") == "still there?"  # nothing typed is lost
    line["refuse"] = False
    wait_until_live(page)  # the next retry gets through
    alert.wait_for(state="hidden")
    assert page.input_value("#chat-text") == "still there?"
    page.press("#chat-text", "Enter")
    page.locator(".messages-list li.me .text").wait_for()
    assert page.inner_text(".messages-list li.me .text") == "still there?"
    assert in_thread(lambda: game.chat.get().text) == "still there?"
    context.close()
