"""The board's "since your last move" summary (``since`` in the game JSON): everything the
opponent did after the player's own last move, in words, with the dice to highlight,
until the player moves; nothing for the player who just moved, for watchers, or once
the game is over."""

import random
import uuid
from collections import Counter

import pytest

from games import rules
from games.models import Game
from games.services import commands

pytestmark = pytest.mark.django_db


def board(client, game) -> dict:
    response = client.get(f"/api/games/{game.pk}/")
    assert response.status_code == 200, response.content
    return response.json()


def step(game, by_seat, rng, prefer=None):
    """One random legal command of the player on turn (never resigning or aborting); with
    ``prefer``, that command type whenever it is legal."""
    game.refresh_from_db()
    state = game.rules_state()
    seat = state.turn
    legal = [c for c in rules.legal_commands(state, seat) if c["type"] not in ("resign", "abort")]
    preferred = [c for c in legal if c["type"] == prefer]
    command = rng.choice(preferred or legal)
    commands.do_command(game.pk, by_seat[seat], command, game.version, str(uuid.uuid4()))
    game.refresh_from_db()
    return seat, command


def names_of(game):
    by_seat = {s.seat: s.user for s in game.seats.all()}
    return by_seat, {seat: user.username for seat, user in by_seat.items()}


def test_the_summary_follows_every_move_of_a_whole_game(game, clients):
    """At every step: the player who just moved has no summary; the other one has the
    opponent's commands since their own last move, in the order they came, the same words
    as the recent moves, the dice placed in this round on cards that carry them, and the
    round end exactly when the opponent called Shanghai."""
    by_seat, names = names_of(game)
    rng = random.Random(7)
    shown = 0
    while True:
        seat, command = step(game, by_seat, rng)
        if game.status != Game.Status.ACTIVE:
            assert board(clients[names[1 - seat]], game)["since"] is None  # the result tells
            break
        mover, other = board(clients[names[seat]], game), board(clients[names[1 - seat]], game)
        assert mover["since"] is None
        since = other["since"]
        assert since is not None
        shown += 1
        # the opponent's commands: the recent moves from the other's side, up to their own
        theirs = []
        for action in other["recent"]:
            if action["by"] == "me":
                break
            theirs.append({"by": "opponent", "text": action["text"]})
        assert [line for line in since["lines"] if "by" in line] == theirs[::-1]
        shanghai = any("called Shanghai!" in line["text"] for line in theirs)
        assert since["round_end"] == shanghai
        # every die to highlight is on the card with its number, on the opponent's side
        view = other["view"]
        on_cards = Counter()
        for slot in view["tavern"]:
            on_cards[slot["number"]] += len(slot["opponent_dice"])
        for value, count in Counter(since["placed"]).items():
            assert on_cards[value] >= count, (value, since, view["tavern"])
        assert len(since["placed"]) <= view["opponent"]["placed_this_round"]
    assert shown > 50


def test_an_opponent_s_shanghai_is_told_with_the_share_out_and_the_new_round(game, clients):
    by_seat, names = names_of(game)
    rng = random.Random(3)
    while True:
        seat, command = step(game, by_seat, rng, prefer="shanghai")
        if command["type"] == "shanghai":
            break
    reader = clients[names[1 - seat]]
    data = board(reader, game)
    since, report = data["since"], data["view"]["last_round"]
    texts = [line["text"] for line in since["lines"]]
    to = [card["to"] for card in report["cards"]]
    mine = to.count("me")
    cards = "card" if mine == 1 else "cards"
    assert texts[-2:] == [
        f"Round {report['round']} is shared out: {mine} {cards} to you, "
        f"{to.count('opponent')} to {names[seat]}, {to.count(None)} removed.",
        f"Round {report['round'] + 1} starts; you begin",
    ]
    assert since["round_end"] is True and since["placed"] == []
    # the moment the reader moves, the summary is gone for them and is the other's now
    step(game, by_seat, rng)
    assert board(reader, game)["since"] is None
    assert board(clients[names[seat]], game)["since"]["round_end"] is False


def test_the_summary_is_in_the_reader_s_language(game, clients, players):
    by_seat, names = names_of(game)
    rng = random.Random(5)
    seat, _ = step(game, by_seat, rng, prefer="roll")
    reader = players[names[1 - seat]]
    reader.language = "de"
    reader.save(update_fields=["language"])
    lines = board(clients[names[1 - seat]], game)["since"]["lines"]
    assert lines[0]["text"].startswith("Runde 1 beginnt")
    assert lines[1]["text"].startswith("würfelte ")


def test_watchers_get_no_summary(game, clients):
    by_seat, _ = names_of(game)
    step(game, by_seat, random.Random(1))
    assert board(clients["carl"], game)["since"] is None
