"""The one write path for games and invitations, one module a noun.

- ``invitations``: invite, accept (the game starts), decline, cancel, rematch;
- ``commands``: a player's move, the only way a game changes by the rules;
- ``endings``: the server's own endings (time out, moderators) and the clock's extra day;
- ``presence``: which players have a game open right now;
- ``chat``: the two players' chat;
- ``game_log``: appending events and keeping the snapshot in step (used by the above);
- ``analysis``: a computer opponent's analysis of a finished game, stored by the worker in chunks.

What a change tells the players (emails, pushes) it queues through ``games.notify.queue``.

``check_*`` functions validate and raise a typed ``ServiceError``; ``do_*`` functions
perform a complete change inside one transaction, lock the parent row first, and
schedule the broadcast for after the commit. Nothing here trusts its caller.
"""
