"""A game's past: the replay (one board per event) and the export of its whole log.

Both are read from the event log alone. The replay folds the events one by one and shows
each state through ``rules.player_view``, as the live board does, so it never holds the
deck order; the export holds the raw log, deck order included, and is only given out
once the game is over.
"""

from __future__ import annotations

from django.utils.translation import gettext as _

from shanghaien.lib.errors import Conflict, Forbidden, NotFound

from . import rules
from .access import Seating
from .models import Game
from .queries import note_of
from .rules.records import check_fairness
from .serializers import bank_json, fairness_json, note_json
from .words import event_line, outcome_sentence

EXPORT_FORMAT = "shanghaien-game"
EXPORT_VERSION = 1


def replay_side(seating: Seating, as_player: str | None) -> int:
    """The seat the replay is seen from, after checking that the viewer may see it.

    A finished game (also aborted or annulled) can be replayed by everyone logged in,
    from either player's side; a game in progress only by its two players, from their
    own side and up to now.
    """
    own = seating.seat
    if as_player:
        names = seating.names
        chosen = next((s for s, name in names.items() if name.lower() == as_player.lower()), None)
        if chosen is None:
            message = _("%(name)r did not play in this game.") % {"name": as_player}
            raise NotFound("not_a_player", message)
    else:
        chosen = seating.side
    if seating.game.status == Game.Status.ACTIVE:
        if own is None:
            message = _("A game in progress is replayed only by its players.")
            raise Forbidden("game_not_over", message)
        if chosen != own:
            message = _("While the game goes on, you see it from your side.")
            raise Forbidden("game_not_over", message)
    return chosen


def replay(seating: Seating, as_player: str | None = None) -> dict:
    """Every step of the game as its viewer may see it: the board after each event."""
    game = seating.game
    side = replay_side(seating, as_player)
    names = seating.names
    steps, rounds = [], []
    state, note = None, None
    for event in game.events.order_by("seq"):
        data = event.as_rules_event()
        if data["type"] == "game_ended":
            note = data.get("note")  # a moderator's reason for annulling
        state = rules.evolve(state, data)
        if data["type"] == "round_started":
            rounds.append({"round": data["round"], "step": len(steps)})
        actor = data.get("seat")  # who acted; None for the game's own events
        steps.append(
            {
                "seq": event.seq,
                "kind": data["type"],
                "by": None if actor is None else ("me" if actor == side else "opponent"),
                "text": event_line(data, names),
                "at": event.created_at.isoformat(),
                "view": _without_moves(rules.player_view(state, side)),
            }
        )
    players = {"me": names[side], "opponent": names[1 - side]}
    result = steps[-1]["view"]["result"] if steps else None
    return {
        "id": game.pk,
        "status": game.status,
        "extra_wild": game.extra_wild,
        "players": players,
        # the sentence under the finished steps, by name from either side
        "outcome": outcome_sentence(result, players, watching=True, note=note) if result else None,
        "seats": [names[0], names[1]],
        "version": game.version,
        "rounds": rounds,
        "steps": steps,
    }


def _without_moves(view: dict) -> dict:
    view["legal"] = []  # a replay shows what happened, not what could be played
    return view


def verified_fair(seating: Seating) -> bool | None:
    """For a game that is over and has seeds: whether its log is what they give
    (``docs/fairness.md``); None where there is nothing to check."""
    game = seating.game
    if not game.fair_seed or game.status == Game.Status.ACTIVE:
        return None
    return check_fairness(export(seating, with_note=False)) is None


def export(seating: Seating, *, with_note: bool = True) -> dict:
    """The whole log of a game that is over, deck order included, with its recorded result;
    and for one of its players who wrote a note on it, that note (``note``: their own,
    never the other player's; nothing for a watcher)."""
    game = seating.game
    if game.status == Game.Status.ACTIVE:
        message = _("A game is exported once it is over: its log holds the deck order.")
        raise Conflict("game_not_over", message)
    players = [p.username for p in seating.players]
    return {
        "format": EXPORT_FORMAT,
        "format_version": EXPORT_VERSION,
        "id": game.pk,
        "extra_wild": game.extra_wild,
        "rated": game.rated,
        "days_per_move": game.days_per_move,
        "bank": bank_json(game),
        "players": players,
        "created_at": game.created_at.isoformat(),
        "finished_at": game.finished_at.isoformat() if game.finished_at else None,
        "result": {
            "status": game.status,
            "reason": game.result_reason,
            "winner": None if game.winner_id is None else seating.seat_of(game.winner_id),
            "scores": [game.score0, game.score1],
        },
        "events": [
            {"seq": e.seq, "at": e.created_at.isoformat(), "event": e.as_rules_event()}
            for e in game.events.order_by("seq")
        ],
        **({"fairness": fairness} if (fairness := fairness_json(game)) else {}),
        **({"note": note_json(note)} if with_note and (note := note_of(seating)) else {}),
    }
