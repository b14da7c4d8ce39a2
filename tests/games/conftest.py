"""Helpers of the game tests; the players and game fixtures are in tests/conftest.py."""


def on_turn(game, clients):
    """(name of the player on turn, their client, the other's name)."""
    game.refresh_from_db()
    name = game.to_move.username
    other = "bernd" if name == "anna" else "anna"
    return name, clients[name], other
