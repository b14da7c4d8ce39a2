"""The "How to play" page (/rules/): open to everyone, linked from every page, its worked
examples played by the engine, told in the server's HTML and embedded for the renderer."""

import html
import json
import re

import pytest
from django.utils import translation

from games import words
from games.guide import pips_beside
from games.rules import player_view
from games.rules.distribution import distribute
from games.rules.engine import card_locations, legal_commands
from games.rules.examples import BLUE, RED, distribution_example, scoring_example
from games.rules.scoring import score, winner_of

pytestmark = pytest.mark.django_db

SECTIONS = (
    "goal",
    "table",
    "turn",
    "direction",
    "placing",
    "round-end",
    "example-distribution",
    "tricks",
    "scoring",
    "example-scoring",
    "leaving",
    "variant",
    "first-game",
)


def text_of(page: str) -> str:
    """The page as a reader sees it: no scripts, no tags, one space between words."""
    page = re.sub(r"<script\b.*?</script>", " ", page, flags=re.S)
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", page)))


def embedded(page: str, script_id: str):
    found = re.findall(
        rf'<script id="{script_id}" type="application/json">(.*?)</script>', page, re.S
    )
    assert len(found) == 1, f"{len(found)} scripts with id {script_id}"
    return json.loads(found[0])


# -- the page and its links ------------------------------------------------------------------


def test_a_visitor_and_a_player_both_get_the_page_with_the_header_link(client, clients):
    for who in (client, clients["anna"]):
        response = who.get("/rules/")
        assert response.status_code == 200
        page = response.content.decode()
        header = page.split('<header class="site-header">', 1)[1].split("</header>", 1)[0]
        assert '<a href="/rules/">How to play</a>' in header
        for section in SECTIONS:
            assert f'id="{section}"' in page, section


def test_every_page_links_to_the_rules_and_so_does_the_board(client, clients, game):
    assert '<a href="/rules/">How to play</a>' in client.get("/").content.decode()
    assert '<a href="/rules/">How to play</a>' in clients["anna"].get("/").content.decode()
    board = clients["anna"].get(f"/games/{game.pk}/").content.decode()
    after_board = board.split('<section id="board"', 1)[1].split("</section>\n", 1)[1]
    assert 'class="rules-link"><a href="/rules/">' in after_board  # outside what board.js redraws


def test_the_page_needs_no_database(client, django_assert_num_queries):
    with django_assert_num_queries(0):
        assert client.get("/rules/").status_code == 200


# -- the examples come from the engine ---------------------------------------------------------


def test_the_distribution_example_is_shared_out_by_the_engine():
    example = distribution_example()
    before, after = example.before, example.after
    placed = {
        seat: sorted(before.number_of(i) for i, n in enumerate(p.dice) for _ in range(n))
        for seat, p in enumerate(before.players)
    }
    assert placed == {RED: [2, 2, 3, 6, 6], BLUE: [3, 4, 5, 6, 6]}
    # red has one die left: the engine allows nothing but Shanghai (or resigning)
    assert before.turn == RED and before.players[RED].supply == 1
    assert {c["type"] for c in legal_commands(before, RED)} == {"shanghai", "resign"}

    report = after.last_round
    assert report == distribute(before, RED)  # the Shanghai folded the engine's distribution
    by_number = {o.number: o for o in report.cards}
    assert [(n, by_number[n].to, by_number[n].reason) for n in range(1, 7)] == [
        (1, None, "unclaimed"),
        (2, RED, "alone"),
        (3, None, "tie"),
        (4, BLUE, "alone"),
        (5, BLUE, "alone"),
        (6, BLUE, "neighbours"),
    ]
    assert by_number[3].neighbours == (4, 4) and by_number[3].dice == (1, 1)
    assert by_number[6].neighbours == (0, 5) and by_number[6].dice == (2, 2)
    assert after.round == 2 and after.start_player == BLUE  # the other player starts next
    for state in (example.choosing, before, after, example.trick):
        card_locations(state)  # every card is somewhere, once


def test_the_walkthrough_boards_are_real_turns():
    example = distribution_example()
    assert example.choosing.phase == "direction" and example.choosing.turn == RED
    trick = example.trick
    assert (trick.round, trick.phase, trick.turn) == (2, "placement", RED)
    assert (trick.start_player, trick.direction) == (BLUE, "right")  # as the caption says
    assert trick.players[RED].tricks == ("T1",)  # won at position 2, usable this round
    halves = {c.get("half") for c in legal_commands(trick, RED) if c["type"] == "trick"}
    assert halves == {"adjust"}  # no sailor yet: no crew for "2 Sailors" to join


def test_the_scoring_example_is_scored_by_the_engine():
    final = scoring_example().final
    assert final.finished and final.result.reason == "completed"
    red, blue = final.result.scores
    assert (red.total, blue.total) == (7, 8)
    assert dict(red.by_nation)["spanish"] == 7
    assert dict(blue.by_nation)["american"] == 6 and dict(blue.by_nation)["chinese"] == 1
    assert dict(red.by_nation)["french"] == dict(blue.by_nation)["french"] == 0
    assert (red.tricks, blue.tricks) == (0, 1)
    assert final.result.winner == BLUE == winner_of(score(final.players))
    card_locations(final)


def test_the_neighbour_sums_in_words_are_the_engines():
    example = distribution_example()
    for outcome in example.after.last_round.cards:
        if outcome.neighbours is None:
            continue
        told = [pips_beside(example.before, seat, outcome.number) for seat in (RED, BLUE)]
        assert [int(t.split("=")[-1]) for t in told] == list(outcome.neighbours)


# -- what the page says and embeds -------------------------------------------------------------


def test_the_page_tells_each_outcome_in_words(client):
    text = text_of(client.get("/rules/").content.decode())
    assert "Red places dice showing 2, 2, 3, 6, 6. Blue places dice showing 3, 4, 5, 6, 6." in text
    for line in (
        "Position 1 (Italian 2) is removed. Nobody placed a die here",
        "Position 2 (Trick: 2 Sailors / Die ±1) goes to Red. Only Red has dice here (2)",
        "Position 3 (Chinese 4) is removed. Both have 1 die here: a tie. On the cards beside"
        " it, Red's dice add up to 2 + 2 = 4 and Blue's to 4. The sums are equal too",
        "Position 4 (French 1) goes to Blue. Only Blue has a die here",
        "Position 5 (Dutch 3) goes to Blue. Only Blue has a die here",
        "Position 6 (American 4) goes to Blue. Both have 2 dice here: a tie. On the cards"
        " beside it, Red's dice add up to 0 and Blue's to 5. Blue has the higher sum",
    ):
        assert line in text, line
    for line in (
        "Spanish 3, 2 (wild), 2 (wild) — 7 0"
        " Only Red has these sailors: Red keeps them and scores 7.",
        "French 1, 4 2, 3 0 0 Equal strength (5 each): all of them are discarded.",
        "American 1, 2, 3 3, 4 0 6 Blue is stronger (7 against 6)"
        " and scores the strength of Red's crew: 6.",
        "Chinese 1 3, 3, 4 0 1 Blue is stronger (10 against 1)"
        " and scores the strength of Red's crew: 1.",
        "Unused tricks 0 1 0 1 Blue kept 1 trick card unused: 1 point.",
        "Total 7 8",
        "Game over: Blue won, 7 : 8.",
    ):
        assert line in text, line


def test_the_renderer_gets_the_engines_views(client):
    page = client.get("/rules/").content.decode()
    data = embedded(page, "rules-examples")
    assert data["players"] == {"me": "Red", "opponent": "Blue"}
    boards = data["boards"]
    assert set(boards) == {"choosing", "before", "after", "trick", "final"}
    example, final = distribution_example(), scoring_example().final

    after = boards["after"]["view"]
    assert after["last_round"] == player_view(example.after, RED)["last_round"]
    assert [c["to"] for c in after["last_round"]["cards"]] == [
        None,
        "me",
        None,
        "opponent",
        "opponent",
        "opponent",
    ]
    assert boards["before"]["view"] == player_view(example.before, RED)
    assert boards["choosing"]["view"]["phase"] == "direction"
    assert {"type": "direction", "one_at": "left"} in boards["choosing"]["view"]["legal"]
    assert boards["trick"]["view"]["me"]["tricks"] == [
        {"id": "T1", "action": "adjust", "extra": False, "usable": True, "block": None}
    ]

    result = boards["final"]["view"]["result"]
    assert result == player_view(final, RED)["result"]
    assert (result["me"]["total"], result["opponent"]["total"], result["winner"]) == (
        7,
        8,
        "opponent",
    )
    assert boards["final"]["outcome"] == "Game over: Blue won, 7 : 8."
    assert all(b["view"]["legal"] == [] for k, b in boards.items() if b["watching"])


def test_visitors_and_players_get_the_boards_words_once(client, clients):
    for who in (client, clients["anna"]):
        page = who.get("/rules/").content.decode()
        assert embedded(page, "words")["nations"]["chinese"]["name"] == "Chinese"


def test_the_page_has_no_inline_script_or_style(client):
    page = client.get("/rules/").content.decode()
    scripts = re.findall(r"<script\b([^>]*)>(.*?)</script>", page, re.S)
    # the words, the game, rules.js, the installable app's pwa.js and the copy buttons' copy.js
    assert len(scripts) == 5
    for attributes, body in scripts:
        if 'type="application/json"' in attributes:
            continue  # data, never run
        assert 'src="' in attributes and not body.strip(), attributes
    assert 'src="/static/js/rules.js"' in page and 'type="module"' in page
    assert not re.search(r"<style\b|\sstyle=|\son[a-z]+=", page)
    assert 'href="/static/css/board.css"' in page


def test_the_page_uses_the_boards_words_in_another_language(client):
    client.cookies["django_language"] = "de"
    page = client.get("/rules/", HTTP_ACCEPT_LANGUAGE="de").content.decode()
    with translation.override("de"):
        german = words.nation_name("chinese"), words.action_name("reroll")
    assert '<html lang="de">' in page
    assert all(word in text_of(page) for word in german)


LEAVING = (
    "Once the tavern is dealt both players have seen part of the deck; a game cannot be "
    "called off after that, leaving is resigning."
)


@pytest.mark.parametrize("language", ["en", "de", "fr", "it"])
def test_the_page_says_a_dealt_game_cannot_be_called_off_in_each_language(client, language):
    client.cookies["django_language"] = language
    page = client.get("/rules/", HTTP_ACCEPT_LANGUAGE=language).content.decode()
    section = page.split('<section id="leaving"', 1)[1].split("</section>", 1)[0]
    with translation.override(language):
        rule = translation.gettext(LEAVING)
    assert (rule == LEAVING) is (language == "en")
    assert rule in text_of(section)
    assert 'href="#leaving"' in page
