"""The board at first sight, measured in Chromium: in every phase (roll, direction,
placement with a trick on offer, round end, game end) the player's own controls and the
rolled dice lie inside the first viewport at page load, on a laptop (1366×768), a phone
(390×844) and a desktop at 200 % zoom (683×384 at twice the pixels); and nothing that
appears after a move (the new state, the opponent's answer, the offer of notifications,
an alert) moves the tavern by more than a few pixels. Motion is off under
prefers-reduced-motion. Screenshots of each case go to tests/e2e/screenshots/."""

import random
import uuid

import pytest

from games import rules
from games.rules import CARDS

from .helpers import api_command, in_thread, log_in_by_cookie, version, wait_for_version_above
from .helpers import wait_until_live as live
from .test_board import game_between  # noqa: F401 (a fixture)
from .test_board_panel import collecting_tricks, drive, seat_of

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

VIEWPORTS = {
    "laptop": {"viewport": {"width": 1366, "height": 768}},
    "phone": {
        "viewport": {"width": 390, "height": 844},
        "has_touch": True,
        "is_mobile": True,
        "device_scale_factor": 2,
    },
    "zoom200": {"viewport": {"width": 683, "height": 384}, "device_scale_factor": 2},
}
LOCALES = {"en": "en-GB", "de": "de-DE"}
SHIFT = 4  # px: what "does not move" allows

# What the player acts on, per phase; each must lie wholly inside the first viewport.
TURN = ['[data-action="roll"]', '[data-action="shanghai"]']
CONTROLS = {
    "roll": TURN,
    "round-end": TURN,
    "direction": ['[data-one-at="left"]', '[data-one-at="right"]', ".rolled .die"],
    "placement": TURN + [".rolled .die", ".controls .trick-card .half:enabled"],
    "game-end": [".game-over .status strong", "[data-rematch]"],
}
# Where the tavern must stay in view too: choosing a direction and placing a die.
TAVERN_IN_VIEW = {"direction", "placement"}


# The elements that reach past the right edge of the screen (none, or the page scrolls
# sideways); words kept only for screen readers sit in clipped boxes and do not count.
WIDER = """() => [...document.querySelectorAll("body *")]
  .filter((e) => e.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5)
  .filter((e) => e.getClientRects().length && ![...ancestors(e)].some(clipped))
  .map((e) => e.tagName + "." + e.className + " " + Math.round(e.getBoundingClientRect().right))
  .slice(0, 5)"""
WIDER = (
    "() => { function* ancestors(e) { for (; e; e = e.parentElement) yield e; }"
    " const clipped = (e) => getComputedStyle(e).clip !== 'auto';"
    " return (" + WIDER + ")(); }"
)


def box_in_page(page, selector):
    """Every match's box in page coordinates (scroll-independent), visible ones only."""
    return page.eval_on_selector_all(
        selector,
        """els => els.filter((e) => e.getClientRects().length).map((e) => {
          const r = e.getBoundingClientRect();
          return {x: r.left + scrollX, y: r.top + scrollY, w: r.width, h: r.height};
        })""",
    )


def assert_in_first_view(page, selector, where):
    width, height = page.viewport_size["width"], page.viewport_size["height"]
    boxes = box_in_page(page, selector)
    assert boxes, f"{selector} not on the board ({where})"
    for b in boxes:
        inside = b["x"] >= 0 and b["y"] >= 0 and b["x"] + b["w"] <= width + 0.5
        inside = inside and b["y"] + b["h"] <= height + 0.5
        assert inside, f"{selector} at {b} outside the first {width}×{height} ({where})"
    return max(b["y"] + b["h"] for b in boxes)


def tavern_top(page) -> float:
    return box_in_page(page, "#board .table")[0]["y"]


def open_board(browser, base_url, user, game, device, locale):
    context = browser.new_context(locale=locale, **device)
    log_in_by_cookie(context, base_url, user)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{base_url}/games/{game.pk}/")
    live(page)
    page.wait_for_timeout(100)  # webfonts and layout settled
    assert page.evaluate("scrollY") == 0
    return context, page, errors


def one_move_by(base_url, game, seat, rng):
    """One legal command (no trick, no resignation) of ``seat``, through the server so that
    its push reaches the board."""
    game.refresh_from_db()
    state = game.rules_state()
    assert state.turn == seat
    choices = [
        c
        for c in rules.legal_commands(state, seat)
        if c["type"] not in ("resign", "abort", "trick")
    ]
    user = next(s.user for s in game.seats.all() if s.seat == seat)
    api_command(base_url, user, game, rng.choice(choices), str(uuid.uuid4()))


def usable_trick(state, seat) -> bool:
    me = state.players[seat]
    won_now = state.last_round and any(
        o.to == seat and CARDS[o.card].kind == "trick" and state.last_round.round == state.round
        for o in state.last_round.cards
    )
    return bool(me.tricks) and not me.trick_used and not won_now and state.round < 8


@pytest.mark.parametrize("language", list(LOCALES))
@pytest.mark.parametrize("device", list(VIEWPORTS))
def test_the_turn_comes_first_and_nothing_shifts_the_board(
    asgi_server,
    browser,
    game_between,  # noqa: F811
    screenshot,
    device,
    language,
):
    game, anna, bernd = game_between()
    red = seat_of(game, anna)
    rng = random.Random(7)
    policy = collecting_tricks(red, rng)
    stops = {
        # round 1, a few dice placed, anna to roll or call Shanghai
        "roll": lambda s: (
            s.round == 1 and s.turn == red and s.phase == "turn" and s.players[red].placed >= 1
        ),
        # a new round: last round's overview, anna to roll first
        "round-end": lambda s: (
            s.round >= 2
            and s.turn == red
            and s.phase == "turn"
            and s.players[0].placed + s.players[1].placed == 0
        ),
        "direction": lambda s: s.turn == red and s.phase == "direction",
        "placement": lambda s: s.turn == red and s.phase == "placement" and usable_trick(s, red),
        "game-end": lambda s: s.finished,
    }
    for phase, stop in stops.items():
        how = _any(rng) if phase == "game-end" else policy
        state = in_thread(drive, game, how, stop, 3000)
        where = f"{phase}, {device}, {language}"
        context, page, errors = open_board(
            browser, asgi_server, anna, game, VIEWPORTS[device], LOCALES[language]
        )
        expected = {"roll": "turn", "round-end": "turn", "game-end": state.phase}
        assert page.get_attribute("#board", "data-phase") == expected.get(phase, phase)
        if phase == "round-end":
            assert page.locator("#board .round-end").count() == 1
        lowest = max(assert_in_first_view(page, selector, where) for selector in CONTROLS[phase])
        height = VIEWPORTS[device]["viewport"]["height"]
        print(f"{where}: the controls' lowest edge at {lowest:.0f} of {height} px")
        if phase in TAVERN_IN_VIEW:
            assert_in_first_view(page, "#board .tavern", where)
        # what the player sees first, and the whole page
        page.screenshot(path=str(screenshot_path(f"layout-{phase}-{device}-{language}")))
        screenshot(page, f"layout-{phase}-{device}-{language}-page")
        if phase == "game-end":  # the final score, readable on a phone in every language
            final = page.locator("#board .result")
            final.screenshot(path=str(screenshot_path(f"layout-final-score-{device}-{language}")))
        assert page.evaluate(WIDER) == [], f"wider than the screen ({where})"

        if phase != "game-end":
            top = tavern_top(page)
            before = version(page)
            if phase in ("roll", "round-end"):
                page.locator('[data-action="roll"]').click()
            elif phase == "direction":
                page.locator('[data-one-at="left"]').click()
            else:
                page.locator(".rolled button.die:enabled").first.click()
            wait_for_version_above(page, before)
            page.wait_for_timeout(150)
            assert abs(tavern_top(page) - top) <= SHIFT, f"the move moved the tavern ({where})"
            # the offer of notifications comes after a first move (push.js): below the board
            page.evaluate("document.getElementById('push-offer').hidden = false")
            assert abs(tavern_top(page) - top) <= SHIFT, f"the offer moved it ({where})"
            # and the opponent's answer, once it is theirs
            game.refresh_from_db()
            if game.rules_state().turn != red and not game.rules_state().finished:
                before = version(page)
                in_thread(one_move_by, asgi_server, game, 1 - red, rng)
                wait_for_version_above(page, before)
                page.wait_for_timeout(150)
                assert abs(tavern_top(page) - top) <= SHIFT, f"the answer moved it ({where})"
            page.screenshot(
                path=str(screenshot_path(f"layout-{phase}-{device}-{language}-after")),
                full_page=False,
            )
        assert errors == []
        context.close()


def _any(rng):
    def policy(state, seat):
        choices = [
            c
            for c in rules.legal_commands(state, seat)
            if c["type"] not in ("resign", "abort", "trick")
        ]
        return rng.choice(choices)

    return policy


def screenshot_path(name):
    from .conftest import SCREENSHOTS

    SCREENSHOTS.mkdir(exist_ok=True)
    return SCREENSHOTS / f"{name}.png"


# Counts the animations started (motion.js uses the Web Animations API).
COUNT_ANIMATIONS = """
window.animated = 0;
const animate = Element.prototype.animate;
Element.prototype.animate = function (...args) {
  window.animated += 1;
  return animate.apply(this, args);
};
"""


@pytest.mark.parametrize("reduced", [False, True], ids=["motion", "reduced-motion"])
def test_a_roll_tumbles_unless_the_player_asks_for_less_motion(
    asgi_server,
    browser,
    game_between,  # noqa: F811
    reduced,
):
    game, anna, _ = game_between()
    red = seat_of(game, anna)
    in_thread(drive, game, _any(random.Random(3)), lambda s: s.turn == red and s.phase == "turn")
    context = browser.new_context(**VIEWPORTS["laptop"])
    context.add_init_script(COUNT_ANIMATIONS)
    log_in_by_cookie(context, asgi_server, anna)
    page = context.new_page()
    page.emulate_media(reduced_motion="reduce" if reduced else "no-preference")
    page.goto(f"{asgi_server}/games/{game.pk}/")
    live(page)
    assert page.evaluate("window.animated") == 0  # nothing moves when the page opens
    before = version(page)
    page.locator('[data-action="roll"]').click()
    wait_for_version_above(page, before)
    page.locator(".rolled .die").first.wait_for()
    if reduced:
        assert page.evaluate("window.animated") == 0
        assert page.evaluate("document.getAnimations().length") == 0
    else:
        assert page.evaluate("window.animated") >= 2  # both dice
    context.close()


def test_each_number_of_the_score_table_opens_that_players_crew(
    asgi_server,
    browser,
    game_between,  # noqa: F811
    screenshot,
):
    game, anna, _ = game_between()
    red = seat_of(game, anna)

    def has_sailors(state):
        return state.round >= 3 and state.turn == red and bool(state.players[red].sailors)

    in_thread(drive, game, _any(random.Random(4)), has_sailors, 3000)
    context, page, errors = open_board(
        browser, asgi_server, anna, game, VIEWPORTS["laptop"], LOCALES["en"]
    )
    number = page.locator('.score-table td.me [data-overview="mine"]').first
    key = number.get_attribute("data-trigger")  # mine-<nation>
    nation = key.removeprefix("mine-")
    window = page.locator("#overview-mine")
    assert window.is_hidden()
    number.focus()
    page.keyboard.press("Enter")
    window.wait_for(state="visible")
    marked = window.locator("li.focus")
    assert marked.count() == 1 and marked.get_attribute("aria-current") == "true"
    assert marked.locator(f".swatch.nation-{nation}").count() == 1
    assert "show the cards" in number.get_attribute("aria-label")
    screenshot(page, "layout-score-number-window")
    page.keyboard.press("Escape")
    window.wait_for(state="hidden")
    assert page.evaluate("document.activeElement.dataset.trigger") == key
    # a nation nobody holds is a plain number, opening nothing
    assert (
        page.eval_on_selector_all(
            ".score-table tbody td.me, .score-table tbody td.opponent",
            "tds => tds.filter((td) => td.textContent.trim() === '0' && td.querySelector('button'))"
            ".length",
        )
        == 0
    )
    assert errors == []
    context.close()
