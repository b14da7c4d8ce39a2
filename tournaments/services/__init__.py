"""The one write path for tournaments, one module a noun.

- ``entries``: create a tournament, sign up, leave before the start, withdraw after it,
  cancel;
- ``stages``: the start (the draw by rating snake, every game of the first stage at
  once), the next stage when the last match of one is decided, a level knock-out
  match's third game, the end; ``check_due`` is the worker's job;
- ``standings``: a tournament game's end counted in its match and its group's
  standings (called by games as the game ends: ``games.services.game_log.ended_hooks``).

``do_*`` functions perform a complete change inside one transaction, the tournament's
row locked first, and schedule the broadcast for after the commit.
"""
