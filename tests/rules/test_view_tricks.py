"""What ``player_view`` decides for the board, held against the engine's own rules.

The board draws these fields and works out no rule itself: each held trick card's
``usable`` and ``block``, ``must_shanghai``, ``round_end`` and, at the end, the result's
``played`` and each nation's outcome.
"""

import random
from dataclasses import replace

from games import rules
from games.rules import player_view
from games.rules.scoring import nation_points
from games.rules.state import ROUNDS


def games(seeds, trick_rate=0.5):
    """(state, between) after every event of random games to their end, tricks and all;
    ``between`` is true for a state inside one command's events (the replay shows those)."""
    for seed in seeds:
        rng = random.Random(seed)
        _, events = rules.new_game(rng, extra_wild=seed % 2 == 0)
        state = rules.replay(events)
        yield state, False
        while not state.finished:
            seat = state.turn
            legal = [c for c in rules.legal_commands(state, seat) if c["type"] != "resign"]
            tricks = [c for c in legal if c["type"] == "trick"]
            command = rng.choice(tricks if tricks and rng.random() < trick_rate else legal)
            events = rules.decide(state, seat, command, rng)
            for i, event in enumerate(events):
                state = rules.evolve(state, event)
                yield state, i < len(events) - 1


def test_a_card_is_usable_exactly_when_the_engine_lets_its_owner_play_it():
    seen = set()
    for state, between in games(range(12)):
        if between:
            continue
        for seat in (0, 1):
            view = player_view(state, seat)
            for side, player in (("me", seat), ("opponent", 1 - seat)):
                for trick in view[side]["tricks"]:
                    assert trick["usable"] == (trick["block"] is None)
                    assert trick["extra"] == trick["id"].startswith("X")
                    seen.add(trick["block"])
                    # on the owner's turn, with a roll to place, the engine agrees
                    if state.turn == player and state.phase == "placement":
                        legal = rules.legal_commands(state, player)
                        playable = any(
                            c["type"] == "trick" and c["card"] == trick["id"] for c in legal
                        )
                        assert playable == trick["usable"], trick
                    # the engine refuses a card whose captain is out
                    if trick["block"] == "trick_used":
                        assert state.players[player].trick_used
                    # a card in hand in a round under way was won in an earlier round
                    assert trick["block"] != "won_this_round"
    assert {None, "trick_used", "game_over"} <= seen


def test_cards_won_at_a_shanghai_wait_for_the_next_round():
    """Between the Shanghai and the next deal (a replay's step) the cards just won are
    not usable yet; once the round is dealt, they are."""
    seen = 0
    for state, between in games(range(12), trick_rate=0):
        report = state.last_round
        if not between or report is None or report.round != state.round:
            continue
        for seat in (0, 1):
            view = player_view(state, seat)
            won = {c["card"]["id"] for c in view["last_round"]["cards"] if c["to"] == "me"}
            for trick in view["me"]["tricks"]:
                expected = (
                    ("won_in_last_round" if state.round == ROUNDS else "won_this_round")
                    if trick["id"] in won
                    else None
                )
                assert trick["block"] == expected
                assert trick["usable"] == (expected is None)
                seen += trick["id"] in won
    assert seen, "no trick card was won in these games"


def test_at_the_end_cards_won_in_the_last_round_are_told_apart():
    finals = [state for state, between in games(range(16), trick_rate=0) if state.finished]
    reasons = set()
    for state in finals:
        assert state.last_round.round == ROUNDS  # played to the end: round 8's Shanghai
        for seat in (0, 1):
            view = player_view(state, seat)
            won = {c["card"]["id"] for c in view["last_round"]["cards"] if c["to"] == "me"}
            for trick in view["me"]["tricks"]:
                assert not trick["usable"]
                assert trick["block"] == (
                    "won_in_last_round" if trick["id"] in won else "game_over"
                )
                reasons.add(trick["block"])
    assert reasons == {"won_in_last_round", "game_over"}


def test_a_resigned_game_makes_every_card_unusable():
    state = rules.replay(rules.new_game(random.Random(1), extra_wild=True)[1])
    state = rules.evolve(state, rules.decide(state, 0, {"type": "resign"})[0])
    view = player_view(state, 1)
    for side in ("me", "opponent"):
        assert [(t["usable"], t["block"], t["extra"]) for t in view[side]["tricks"]] == [
            (False, "game_over", True)
        ]


def with_supply(state, seat, supply):
    """``state`` with ``seat`` holding ``supply`` dice (the rest on the first card)."""
    players = list(state.players)
    players[seat] = replace(players[seat], dice=(6 - supply, 0, 0, 0, 0, 0))
    return replace(state, players=tuple(players))


def test_must_shanghai_is_exactly_a_turn_without_a_roll():
    seen = set()
    for state, _ in games(range(4)):
        for seat in (0, 1):
            mover = state.turn == seat and state.phase == "turn" and not state.finished
            for supply in range(7) if mover else [None]:
                position = state if supply is None else with_supply(state, seat, supply)
                view = player_view(position, seat)
                must = view["must_shanghai"]
                seen.add(must)
                kinds = {c["type"] for c in view["legal"]}
                if mover:
                    # the engine offers no roll exactly when the player must call Shanghai
                    assert ("roll" not in kinds) == (must is not None)
                    assert must == {0: "no_dice", 1: "one_die"}.get(supply)
                    if must:
                        assert "shanghai" in kinds
                else:
                    assert must is None
    assert {None, "no_dice", "one_die"} <= seen


def test_the_round_end_shows_from_the_shanghai_until_the_next_roll():
    seen = {True: 0, False: 0}
    for state, _ in games(range(6)):
        view = player_view(state, 0)
        shown = view["round_end"]
        seen[shown] += 1
        if state.last_round is None:
            assert not shown
        elif state.finished:
            assert shown
        else:
            nothing_yet = state.roll is None and all(p.placed == 0 for p in state.players)
            assert shown == nothing_yet
            if state.roll is not None:
                assert not shown
    assert seen[True] and seen[False]


def test_each_nation_outcome_agrees_with_the_points_scored():
    finals = [state for state, between in games(range(10)) if state.finished]
    outcomes = set()
    for state in finals:
        for seat in (0, 1):
            view = player_view(state, seat)
            result = view["result"]
            assert result["played"]
            for nation, crew in result["nations"].items():
                mine = view["me"]["strength"][nation]
                theirs = view["opponent"]["strength"][nation]
                outcomes.add(crew["outcome"])
                points = {
                    "me": result["me"]["by_nation"][nation],
                    "opponent": result["opponent"]["by_nation"][nation],
                }
                if crew["winner"]:
                    loser = "opponent" if crew["winner"] == "me" else "me"
                    assert points[crew["winner"]] > 0 and points[loser] == 0
                    assert points["me"] == nation_points(mine, theirs)
                else:
                    assert points == {"me": 0, "opponent": 0}
                expected = (
                    "nobody"
                    if not (mine or theirs)
                    else "tie"
                    if mine == theirs
                    else "contested"
                    if mine and theirs
                    else "uncontested"
                )
                assert crew["outcome"] == expected
    assert outcomes == {"nobody", "uncontested", "tie", "contested"}


def test_a_game_resigned_before_play_was_not_played():
    state = rules.replay(rules.new_game(random.Random(3), extra_wild=False)[1])
    state = rules.evolve(state, rules.decide(state, 0, {"type": "resign"})[0])
    result = player_view(state, 0)["result"]
    assert result["played"] is False
    assert all(c == {"outcome": "nobody", "winner": None} for c in result["nations"].values())
