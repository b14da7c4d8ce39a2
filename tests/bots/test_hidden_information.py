"""The bots see no hidden information, by construction.

What is secret while a game runs: the deck's order and the dice still to come. The
dice are in no ``GameState`` (the server draws each throw from its secret seed when it
is thrown, ``games.services.game_log``), and the order is thrown away before a bot
looks: ``games.rules.as_known`` puts the deck in the catalogue's order, the worker hands
the bots only that, and ``games.bots.choose`` starts from it again. So every level, and
the bench's independent player, plays the same command whatever the deck's order, and
the worker gives the bot a state in which the order is not.
"""

from __future__ import annotations

import dataclasses
import random

import pytest

from bench import rival
from games import bot_turns
from games.bots import BASELINES, LEVELS, choose, unseen
from games.rules import as_known, decide, evolve, new_game
from games.rules.cards import CARDS
from games.rules.state import GameState

ORDER = list(CARDS)


def positions(count: int = 12) -> list[GameState]:
    """States from games between random players, a few of each phase, with the variant."""
    found, rng = [], random.Random(39)
    while len(found) < count:
        state, _ = new_game(rng, extra_wild=len(found) % 2 == 1)
        stop = rng.randint(3, 90)
        for _ in range(stop):
            if state.finished:
                break
            command = choose(state, state.turn, "random", rng)
            for event in decide(state, state.turn, command, rng):
                state = evolve(state, event)
        if not state.finished and len(state.deck) > 1:
            found.append(state)
    return found


def reordered(state: GameState, seed: int) -> GameState:
    deck = list(state.deck)
    random.Random(seed).shuffle(deck)
    return dataclasses.replace(state, deck=tuple(deck))


def test_the_state_holds_the_deck_and_no_dice_to_come():
    # a new field of the state could carry a secret: look at it, then extend this list
    assert [f.name for f in dataclasses.fields(GameState)] == [
        "extra_wild",
        "deck",
        "tavern",
        "round",
        "start_player",
        "turn",
        "phase",
        "direction",
        "roll",
        "players",
        "discarded",
        "last_round",
        "result",
    ]


def test_as_known_keeps_the_cards_and_forgets_their_order():
    for state in positions():
        known = as_known(state)
        assert sorted(known.deck) == sorted(state.deck)
        assert list(known.deck) == sorted(known.deck, key=ORDER.index)
        assert as_known(reordered(state, 1)) == as_known(reordered(state, 2)) == known
        assert dataclasses.replace(known, deck=state.deck) == state  # nothing else changed


@pytest.mark.parametrize("level", LEVELS + BASELINES)
def test_every_level_plays_the_same_whatever_the_deck_order(level):
    for index, state in enumerate(positions(6 if level == "admiral" else 12)):
        extra = {"playouts": 24} if level == "admiral" else {}
        commands = [
            choose(reordered(state, k), state.turn, level, random.Random(index), **extra)
            for k in range(3)
        ]
        assert commands[0] == commands[1] == commands[2]


def test_the_independent_player_plays_the_same_whatever_the_deck_order():
    for index, state in enumerate(positions(8)):
        commands = [
            rival.choose(reordered(state, k), state.turn, random.Random(index), playouts=60)
            for k in range(3)
        ]
        assert commands[0] == commands[1] == commands[2]


def test_what_a_bot_looks_at_is_a_guess_drawn_from_the_cards_alone():
    state = positions(1)[0]
    guesses = [unseen(reordered(state, k), random.Random(5)).deck for k in range(4)]
    assert len(set(guesses)) == 1 and sorted(guesses[0]) == sorted(state.deck)


@pytest.mark.django_db
def test_the_worker_hands_the_bot_a_state_without_the_decks_order(clients, players, monkeypatch):
    from datetime import timedelta

    from games.bot_turns import play_bot_turns
    from games.models import Game

    from ..helpers.games import command_body, post

    asked = []

    def spy(state, level, rng):
        asked.append((state, rng))
        return real(state, level, rng)

    real = bot_turns.choose
    monkeypatch.setattr(bot_turns, "choose", spy)
    answer = post(clients["anna"], "/api/invitations/", {"to": "Captain", "rated": False})
    assert answer.status_code == 201, answer.content
    game = Game.objects.get(pk=answer.json()["game"])
    secret = game.rules_state().deck
    assert list(secret) != sorted(secret, key=ORDER.index)  # the real order is another
    while game.to_move_id == players["anna"].pk:  # anna begins: she plays her turn
        state = game.rules_state()
        body = command_body(choose(state, state.turn, "random", random.Random(1)), game.version)
        assert post(clients["anna"], f"/api/games/{game.pk}/commands/", body).status_code == 200
        game.refresh_from_db()
    assert play_bot_turns(now=game.turn_started_at + timedelta(seconds=5)) >= 1
    assert asked
    for state, rng in asked:
        assert set(state.deck) <= set(secret) and len(state.deck) > 1
        assert list(state.deck) == sorted(state.deck, key=ORDER.index)
        assert isinstance(rng, random.SystemRandom)  # the bot's own: the dice are the server's
