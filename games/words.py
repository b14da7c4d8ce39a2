"""The game's words: nations, cards, moves, events and outcomes, each written once.

Every sentence a player reads about the game comes from here and goes through Django's
translation functions. Placeholders are named and %-style, so a translation may put them
in any order. Server-rendered pages call these functions; the board's JavaScript gets the
same words, in the active language, from ``words_js.words_json()``.

Nothing here is evaluated at import: each function asks for the words of the language
active when it is called.
"""

from __future__ import annotations

from django.utils.translation import gettext as _
from django.utils.translation import ngettext, pgettext

from .rules import CARDS, NATIONS

# -- nations and trick actions -------------------------------------------------------------


def nation_names() -> dict[str, str]:
    """Each nation's name, as a crew and on the cards, in the rules' order."""
    names = {
        "american": pgettext("nation", "American"),
        "french": pgettext("nation", "French"),
        "german": pgettext("nation", "German"),
        "chinese": pgettext("nation", "Chinese"),
        "dutch": pgettext("nation", "Dutch"),
        "turkish": pgettext("nation", "Turkish"),
        "spanish": pgettext("nation", "Spanish"),
        "italian": pgettext("nation", "Italian"),
    }
    return {nation: names[nation] for nation in NATIONS}


def nation_codes() -> dict[str, str]:
    """The short code a sailor card shows for its nation."""
    codes = {
        "american": pgettext("nation code on a card", "AM"),
        "french": pgettext("nation code on a card", "FR"),
        "german": pgettext("nation code on a card", "DE"),
        "chinese": pgettext("nation code on a card", "CN"),
        "dutch": pgettext("nation code on a card", "NL"),
        "turkish": pgettext("nation code on a card", "TR"),
        "spanish": pgettext("nation code on a card", "ES"),
        "italian": pgettext("nation code on a card", "IT"),
    }
    return {nation: codes[nation] for nation in NATIONS}


def nation_name(nation: str) -> str:
    return nation_names().get(nation, nation)


def action_names() -> dict[str, str]:
    """The two halves of a trick card: the wild "2 Sailors" and the three actions."""
    return {
        "adjust": pgettext("trick card", "Die ±1"),
        "both": pgettext("trick card", "Add both dice"),
        "reroll": pgettext("trick card", "Roll again"),
        "wild": pgettext("trick card", "2 Sailors"),
    }


def action_name(half: str | None) -> str:
    return action_names().get(half, str(half))


def direction_names() -> dict[str, str]:
    """The start player's choice of the end of the row that is number 1."""
    return {"left": _("Number 1 at the left end"), "right": _("Number 1 at the right end")}


# -- cards ---------------------------------------------------------------------------------


def sailor_name(nation: str, value: int) -> str:
    return pgettext("a sailor card: nation and value", "%(nation)s %(value)s") % {
        "nation": nation_name(nation),
        "value": value,
    }


def card_name(card_id: str) -> str:
    """A card by its rules id: "American 3", "trick card T3 (Die ±1)"."""
    card = CARDS[card_id]
    if card.kind == "sailor":
        return sailor_name(card.nation, card.value)
    return _("trick card %(card)s (%(action)s)") % {
        "card": card_id,
        "action": action_name(card.action),
    }


def card_label(card: dict | None) -> str:
    """A card as ``player_view`` shows it: "American 3", "Trick: 2 Sailors / Die ±1"."""
    if card is None:
        return pgettext("no card", "—")
    if card["kind"] == "sailor":
        return sailor_name(card["nation"], card["value"])
    return _("Trick: %(wild)s / %(action)s") % {
        "wild": action_name("wild"),
        "action": action_name(card["action"]),
    }


# -- commands ------------------------------------------------------------------------------


def _sign(delta: int) -> str:
    return "+1" if delta > 0 else "−1"


def describe_command(command: dict, roll: list[int] | None = None) -> str:
    """A legal command as the label of its button; ``roll`` names the dice by value."""
    kind = command["type"]
    plain = {
        "roll": _("Roll the dice"),
        "shanghai": _("Shanghai!"),
        "resign": _("Resign"),
        "abort": _("Abort (no result)"),
    }
    if kind in plain:
        return plain[kind]
    if kind == "direction":
        return direction_names().get(command["one_at"], command["one_at"])
    if kind == "place":
        if roll:
            return _("Place the %(value)s") % {"value": roll[command["die"]]}
        return _("Place die %(number)s") % {"number": command["die"] + 1}
    half = command.get("half")
    trick = action_name(half)
    if command.get("card"):
        trick = _("%(card)s: %(trick)s") % {"card": command["card"], "trick": trick}
    if half == "wild" and "nation" in command:
        return _("%(trick)s (a wild %(nation)s sailor)") % {
            "trick": trick,
            "nation": nation_name(command["nation"]),
        }
    if half == "adjust" and "die" in command:
        if roll:
            before = roll[command["die"]]
            return _("%(trick)s: %(before)s → %(after)s") % {
                "trick": trick,
                "before": before,
                "after": before + command["delta"],
            }
        return _("%(trick)s: die %(number)s %(sign)s") % {
            "trick": trick,
            "number": command["die"] + 1,
            "sign": _sign(command["delta"]),
        }
    return trick


# -- events --------------------------------------------------------------------------------


def describe_event(event: dict) -> str | None:
    """A short phrase for one event, None for events that need no words of their own."""
    kind = event["type"]
    if kind == "rolled":
        a, b = event["dice"]
        return _("rolled %(first)s and %(second)s") % {"first": a, "second": b}
    if kind == "direction_chosen":
        if event["one_at"] == "left":
            return _("put number 1 at the left end")
        return _("put number 1 at the right end")
    if kind == "placed":
        values = event["values"]
        if len(values) == 2:
            return _("placed the %(first)s and the %(second)s") % {
                "first": values[0],
                "second": values[1],
            }
        return _("placed the %(value)s") % {"value": values[0]}
    if kind == "trick_played":
        name = action_name(event["half"])
        if event["half"] == "wild":
            return _("used %(trick)s (a wild %(nation)s sailor)") % {
                "trick": name,
                "nation": nation_name(event["nation"]),
            }
        if event["half"] == "adjust":
            return _("used %(trick)s (%(sign)s on die %(number)s)") % {
                "trick": name,
                "sign": _sign(event["delta"]),
                "number": event["die"] + 1,
            }
        return _("used %(trick)s") % {"trick": name}
    if kind == "shanghai_called":
        return _("called Shanghai!")
    if kind == "game_ended" and event["reason"] == "resignation":
        return _("resigned")
    return None  # game_started, round_started, the other endings: the board shows them


def describe_events(events: list[dict]) -> str:
    """One player's command in words, e.g. "rolled 2 and 5, used Roll again, rolled 6 and 6"."""
    phrases = [p for p in (describe_event(e) for e in events) if p]
    return pgettext("between the parts of one move", ", ").join(phrases)


def event_line(event: dict, names: dict) -> str | None:
    """One event as a sentence with the players' names; None for a silent one.

    ``names`` maps a seat to a name. Round starts and the ending get a line of their own.
    """
    kind = event["type"]
    if kind == "round_started":
        return _("Round %(round)s starts; %(name)s begins") % {
            "round": event["round"],
            "name": names.get(event["start_player"], "?"),
        }
    if kind == "game_started":
        if event["extra_wild"]:
            return _("Game created with the extra wild card")
        return _("Game created")
    if kind == "game_ended":
        return ending_line(event, names)
    phrase = describe_event(event)
    if phrase is None:
        return None
    return _("%(name)s %(action)s") % {"name": names.get(event.get("seat"), "?"), "action": phrase}


def round_start_line(event: dict, side: int, names: dict) -> str:
    """A ``round_started`` event told to the player in ``side``."""
    if event["start_player"] == side:
        return _("Round %(round)s starts; you begin") % {"round": event["round"]}
    return event_line(event, names)


def shared_out(report: dict, opponent: str) -> str:
    """A round end (the view's ``last_round``) in one sentence, told to "me"."""
    to = [card["to"] for card in report["cards"]]
    mine, theirs, removed = to.count("me"), to.count("opponent"), to.count(None)
    return _("Round %(round)s is shared out: %(mine)s, %(theirs)s, %(removed)s.") % {
        "round": report["round"],
        "mine": ngettext("%(n)s card to you", "%(n)s cards to you", mine) % {"n": mine},
        "theirs": ngettext("%(n)s to %(name)s", "%(n)s to %(name)s", theirs)
        % {"n": theirs, "name": opponent},
        "removed": ngettext("%(n)s removed", "%(n)s removed", removed) % {"n": removed},
    }


def ending_line(event: dict, names: dict) -> str:
    """The ``game_ended`` event as a sentence, e.g. "anna resigned: bernd wins"."""
    reason, winner = event["reason"], event.get("winner")
    if reason == "completed":
        return _("The last round is over: the game ends")
    if reason == "annulled":
        note = moderator_note(event.get("note"))
        if note:
            return _("A moderator annulled the game: %(reason)s") % {"reason": note}
        return _("A moderator annulled the game: no result")
    if reason == "aborted":
        return _("%(name)s aborted the game: no result") % {
            "name": names.get(event.get("seat"), "?")
        }
    if winner is None:
        if reason == "adjudicated":
            return _("A moderator declared the game a draw")
        return _("The game ended (%(reason)s): a draw") % {"reason": how_won(reason)}
    who = {"winner": names.get(winner, "?"), "loser": names.get(1 - winner, "?")}
    if reason == "resignation":
        return _("%(loser)s resigned: %(winner)s wins") % who
    if reason == "timeout":
        return _("%(loser)s ran out of time: %(winner)s wins") % who
    if reason == "adjudicated":
        return _("A moderator awarded the game to %(winner)s") % who
    return _("The game ended (%(reason)s): %(winner)s wins") % {**who, "reason": how_won(reason)}


# -- outcomes ------------------------------------------------------------------------------


def reason_names() -> dict[str, str]:
    """How a game ended, as said after its result: "anna won (by resignation)"."""
    return {
        "completed": _("after the last round"),
        "resignation": _("by resignation"),
        "timeout": _("on time"),
        "adjudicated": _("by a moderator's decision"),
        "annulled": _("annulled by a moderator"),
        "aborted": _("aborted"),
    }


def how_won(reason: str) -> str:
    """The reason in words; never its code, not even for a code this list does not know."""
    return reason_names().get(reason) or pgettext("how a game ended", "for another reason")


def moderator_note(note) -> str:
    """The reason a moderator gave, on one line ("" if none was recorded)."""
    return " ".join(note.split()) if isinstance(note, str) else ""


def _stop(text: str) -> str:
    """``text`` ending as a sentence does, unless it already ends in a stop of its own."""
    if text.endswith((".", "!", "?", "…")):
        return text
    return text + pgettext("end of a sentence", ".")


def nothing_counted(result: dict) -> bool:
    """Both totals are zero: a game that ended (on time, by resignation, by a moderator)
    before anything was played is told without its "0 : 0"."""
    return not (result["me"]["total"] or result["opponent"]["total"])


def winner_phrase(winner: str | None, names: dict, watching: bool) -> str:
    """ "You won", "anna won" or "A draw"; ``winner`` is "me", "opponent" or None."""
    if winner == "me" and not watching:
        return _("You won")
    if winner in ("me", "opponent"):
        return _("%(name)s won") % {"name": names[winner]}
    return _("A draw")


def outcome_sentence(result: dict, names: dict, watching: bool, note: str | None = None) -> str:
    """The one sentence of a game's outcome, from the ``result`` of ``rules.player_view``.

    ``names`` is {"me": name, "opponent": name}; ``watching`` says "anna won" for the
    viewer's side instead of "You won". ``note``: the reason a moderator gave for
    annulling the game (the ``note`` of its ``game_ended`` event), said instead of
    "no result". A game that ended before anything counted is told without its 0 : 0.
    """
    reason = result["reason"]
    if reason == "aborted":
        return _("Game aborted: no result.")
    if reason == "annulled":
        note = moderator_note(note)
        if note:
            return _stop(_("Game annulled by a moderator: %(reason)s") % {"reason": note})
        return _("Game annulled by a moderator: no result.")
    parts = {
        "who": winner_phrase(result.get("winner"), names, watching),
        "me": result["me"]["total"],
        "opponent": result["opponent"]["total"],
    }
    if reason == "completed":
        return _("Game over: %(who)s, %(me)s : %(opponent)s.") % parts
    if nothing_counted(result):
        return _("Game over: %(who)s (%(how)s).") % {"who": parts["who"], "how": how_won(reason)}
    return _("Game over: %(who)s (%(how)s), %(me)s : %(opponent)s.") % {
        **parts,
        "how": how_won(reason),
    }
