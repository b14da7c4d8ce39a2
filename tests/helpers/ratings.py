"""Rated games in tests: starting one, and the result the engine alone gives a seed."""

import random


def start_game(players, rated=True, rng=None, monkeypatch=None):
    """A game between anna (seat 0) and bernd (seat 1); ``rng`` replaces the server's dice."""
    from games.services import game_log, invitations

    if rng is not None:  # every draw from this rng, not from the game's seeds
        monkeypatch.setattr(game_log, "rng", rng)
        monkeypatch.setattr(game_log, "stream_of", lambda game: rng)
    invitation = invitations.do_invite(players["anna"], to="bernd", rated=rated)
    return invitations.do_accept_invitation(invitation.pk, players["bernd"])


def simulate(seed: int):
    """The result of the game that ``play_drawn_game`` plays with this seed, by the engine alone."""
    from games import rules

    dice, choices = random.Random(seed), random.Random(seed + 1_000_000)
    state, _ = rules.new_game(dice, extra_wild=False)
    while not state.finished:
        seat = state.turn
        for event in rules.decide(state, seat, rules.random_command(state, seat, choices), dice):
            state = rules.evolve(state, event)
    return state.result
