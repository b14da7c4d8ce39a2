from functools import cache

from shanghaien.lib import webpush

from .models import Game
from .rules.state import ROUNDS
from .words_js import words_json


def waiting_count(request):
    """How many games wait for the logged-in player: the page title shows it."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}
    # Read once a page: the title asks for it twice.
    return {
        "waiting_count": cache(
            lambda: Game.objects.filter(status=Game.Status.ACTIVE, to_move=user).count()
        )
    }


def words(request):
    """The game's words for the page's JavaScript, and the number of rounds.

    ``words`` is a callable: a page that never reads it does not build it, and a page
    that reads it often builds it once.
    """
    return {"words": cache(words_json), "ROUNDS": ROUNDS}


def push_key(request):
    """The key a logged-in player's browser subscribes to push notifications with
    (static/js/push.js keeps its subscription current); "" when no push is sent, and to a
    guest (accounts.guest_accounts), whose opponent, the computer, answers at once."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}
    return {"push_key": "" if user.is_guest else webpush.public_key}
