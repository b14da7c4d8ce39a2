"""The facts of ``player_view`` that the board's trick panel reads.

The board (``trickBlock`` in static/js/board-render.js) tells, for each trick card in a
player's hand, whether it is usable this round and why not, from the view alone: the
status, the round, the player's captain (``trick_used_this_round``) and the last
distribution (``last_round``: which cards went to whom, in which round). ``block`` below
is the same reading in Python; these tests hold it against the engine's own rules.
"""

import random

from games import rules
from games.rules import player_view
from games.rules.state import ROUNDS


def block(view: dict, side: str, trick: dict) -> str | None:
    """board-render.js's trickBlock: why ``trick`` in ``side``'s hand is not usable now."""
    report = view["last_round"]
    just_won = bool(report) and any(
        c["card"]["id"] == trick["id"] and c["to"] == side for c in report["cards"]
    )
    if just_won and report["round"] == view["rounds"]:
        return "won_in_last_round"
    if view["status"] == "finished":
        return "game_over"
    if just_won and report["round"] == view["round"]:
        return "won_this_round"
    if view[side]["trick_used_this_round"]:
        return "trick_used"
    return None


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
                    reason = block(view, side, trick)
                    seen.add(reason)
                    # on the owner's turn, with a roll to place, the engine agrees
                    if state.turn == player and state.phase == "placement":
                        legal = rules.legal_commands(state, player)
                        playable = any(
                            c["type"] == "trick" and c["card"] == trick["id"] for c in legal
                        )
                        assert playable == (reason is None), (trick, reason)
                    # a card in hand in a round under way was won in an earlier round
                    assert reason != "won_this_round"
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
                assert block(view, "me", trick) == expected
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
                reason = block(view, "me", trick)
                assert reason == ("won_in_last_round" if trick["id"] in won else "game_over")
                reasons.add(reason)
    assert reasons == {"won_in_last_round", "game_over"}


def test_a_resigned_game_makes_every_card_unusable():
    state = rules.replay(rules.new_game(random.Random(1), extra_wild=True)[1])
    state = rules.evolve(state, rules.decide(state, 0, {"type": "resign"})[0])
    view = player_view(state, 1)
    assert [block(view, "me", t) for t in view["me"]["tricks"]] == ["game_over"]
    assert [block(view, "opponent", t) for t in view["opponent"]["tricks"]] == ["game_over"]
