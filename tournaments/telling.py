"""What a tournament tells its players: a notification when it starts, when a new game
of theirs begins, when it ends (or is cancelled). Called by the services inside their
transaction (the outbox rows are written with the change).

The outbox is games' (``games.notify``), under the kind ``tournament``; its key says
what happened (``<tournament id>:started``, ``:game:<game id>``, ``:ended``,
``:cancelled``), so each player hears of each event once. games does not know
tournaments: the words are written here, registered in ``games.notify.writers`` (see
``register``), when the worker sends them, in the recipient's language.
"""

from __future__ import annotations

from django.conf import settings
from django.utils.translation import gettext as _

from games.models import Game
from games.notify import queue, writers
from shanghaien.lib.webpush import Message

KIND = "tournament"
TTL = 3 * 24 * 3600  # seconds a push waits for an offline device


def started(tournament, entries) -> None:
    """The tournament began: each entrant hears once, however many games they have."""
    for entry in entries:
        queue.tell(entry.user, KIND, f"{tournament.pk}:started")


def game_began(tournament, match_game, players) -> None:
    """A game of a later stage (or a third game) began: both players hear."""
    game = match_game.game
    for player in players:
        queue.tell(player, KIND, f"{tournament.pk}:game:{game.pk}", game)


def ended(tournament, entries) -> None:
    """The tournament is over (or cancelled): each entrant hears, with their place."""
    event = "cancelled" if tournament.status == tournament.Status.CANCELLED else "ended"
    for entry in entries:
        queue.tell(entry.user, KIND, f"{tournament.pk}:{event}")


# -- the words (``games.notify.writers``) -----------------------------------------------


def _url(path: str) -> str:
    return settings.SITE_URL + path


def _about(notification):
    """(tournament, event, game id or None) of a notification's key; None if the
    tournament is gone or the key is not one of ours."""
    from .models import Tournament

    parts = notification.key.split(":")
    if len(parts) not in (2, 3) or not parts[0].isdigit():
        return None
    tournament = Tournament.objects.filter(pk=int(parts[0])).first()
    if tournament is None:
        return None
    game_id = int(parts[2]) if len(parts) == 3 and parts[2].isdigit() else None
    if parts[1] == "game" and game_id is None:
        return None
    return tournament, parts[1], game_id


def words(notification) -> tuple[str, str, str] | str:
    """(title, text, path) of a tournament notification, in the active language; or why
    it is not sent."""
    from .models import Entry

    about = _about(notification)
    if about is None:
        return "tournament gone"
    tournament, event, game_id = about
    names = {"name": tournament.name}
    page = f"/tournaments/{tournament.pk}/"
    if event == "started":
        return (
            _("The tournament %(name)s has begun") % names,
            _("Your first games have begun: they wait for you in your lobby."),
            page,
        )
    if event == "game":
        game = Game.objects.filter(pk=game_id).first()
        if game is None or game.status != Game.Status.ACTIVE:
            return "game over"
        return (
            _("A new game in the tournament %(name)s") % names,
            _("Your next game in the tournament has begun."),
            f"/games/{game.pk}/",
        )
    if event == "cancelled":
        return (
            _("The tournament %(name)s was cancelled") % names,
            _("It was cancelled: its games that were still running ended without a result."),
            page,
        )
    if event == "ended":
        entry = Entry.objects.filter(tournament=tournament, user=notification.user).first()
        count = Entry.objects.filter(tournament=tournament).count()
        if entry is not None and tournament.winner_id == notification.user.pk:
            text = _("You won it. Congratulations!")
        elif entry is not None and entry.final_place:
            text = _("You finished in place %(place)d of %(count)d.") % {
                "place": entry.final_place,
                "count": count,
            }
        else:
            text = _("See the final standings on its page.")
        return _("The tournament %(name)s is over") % names, text, page
    return "unknown event"


def email(notification) -> tuple[str, str] | str:
    said = words(notification)
    if isinstance(said, str):
        return said
    title, text, path = said
    return title, f"{text}\n{_url(path)}\n"


def push(notification) -> Message | str:
    said = words(notification)
    if isinstance(said, str):
        return said
    title, text, path = said
    tag = f"tournament-{notification.key}"
    payload = {"title": title, "body": text[:160], "url": path, "tag": tag}
    return Message(payload=payload, topic=tag.replace(":", "-")[:32], ttl=TTL)


def register() -> None:
    writers.register(KIND, email=email, push=push)
