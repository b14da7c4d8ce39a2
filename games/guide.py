"""The "How to play" page: the rules in words, and the rulebook's worked examples played
by the engine (``rules.examples``) and shown as the board shows them.

No database: the examples are pure games, and every name of a nation, card or trick half
comes from ``words`` so the page says what the board says.
"""

from __future__ import annotations

from collections import Counter
from functools import cache

from django.shortcuts import render
from django.utils.translation import gettext as _
from django.utils.translation import ngettext, pgettext

from .rules import CARDS, NATIONS, player_view
from .rules.cards import NATION_COLOURS, SAILOR_VALUES, TRICK_ACTIONS, WILD_VALUE
from .rules.examples import BLUE, RED, distribution_example, scoring_example
from .rules.state import DICE_PER_PLAYER, ROUNDS, TAVERN_SIZE, GameState
from .words import (
    action_names,
    card_label,
    describe_command,
    event_line,
    nation_codes,
    nation_names,
    outcome_sentence,
)
from .words_js import words_json

# The engine's examples never change; the words around them follow the request's language.
examples = cache(distribution_example)
final_scores = cache(scoring_example)


def rules(request):
    names = player_names()
    distribution, scoring = examples(), final_scores()
    context = {
        "facts": facts(),
        "nations": nation_rows(),
        "actions": action_names(),
        "sailor_cards": sailor_cards(NATIONS[0]),
        "trick_cards": trick_cards(),
        "labels": {
            "roll": pgettext("button", "Roll"),
            "shanghai": describe_command({"type": "shanghai"}),
        },
        "names": names,
        "distribution": distribution_context(distribution, names),
        "scoring": scoring_context(scoring.final, names),
        "boards": boards_json(names),
        # base.html gives the board's words to logged-in players only; visitors need them here
        "visitor_words": None if request.user.is_authenticated else words_json(),
    }
    return render(request, "games/rules/rules.html", context)


def player_names() -> dict[str, str]:
    """The two players of the examples, by the side the board shows them on."""
    return {
        "me": pgettext("the player shown in red", "Red"),
        "opponent": pgettext("the player shown in blue", "Blue"),
    }


def facts() -> dict:
    """The numbers of the game, from the rules rather than written again."""
    sailors = [c for c in CARDS.values() if c.kind == "sailor"]
    return {
        "cards": len(sailors) + len(TRICK_ACTIONS),
        "sailors": len(sailors),
        "tricks": len(TRICK_ACTIONS),
        "nations": len(NATIONS),
        "per_nation": len(SAILOR_VALUES),
        "values": pgettext("between numbers of a list", ", ").join(map(str, SAILOR_VALUES)),
        "strength": sum(SAILOR_VALUES),
        "dice": DICE_PER_PLAYER,
        "tavern": TAVERN_SIZE,
        "rounds": ROUNDS,
        "wild_value": WILD_VALUE,
    }


def colour_names() -> dict[str, str]:
    """The card colours, by the names ``rules.cards.NATION_COLOURS`` gives them."""
    return {
        "red": pgettext("card colour", "red"),
        "light blue": pgettext("card colour", "light blue"),
        "dark blue": pgettext("card colour", "dark blue"),
        "yellow": pgettext("card colour", "yellow"),
        "orange": pgettext("card colour", "orange"),
        "purple": pgettext("card colour", "purple"),
        "green": pgettext("card colour", "green"),
        "grey": pgettext("card colour", "grey"),
    }


def nation_rows() -> list[dict]:
    names, codes, colours = nation_names(), nation_codes(), colour_names()
    return [
        {
            "nation": n,
            "name": names[n],
            "code": codes[n],
            "colour": colours[NATION_COLOURS[n]],
        }
        for n in NATIONS
    ]


def sailor_cards(nation: str) -> list[dict]:
    """The sailors of one nationality, drawn as the board draws a card."""
    names, codes = nation_names(), nation_codes()
    return [
        {
            "nation": nation,
            "name": names[nation],
            "code": codes[nation],
            "value": card.value,
            "label": card_label(card.to_json()),
        }
        for card in CARDS.values()
        if card.kind == "sailor" and card.nation == nation
    ]


def trick_cards() -> list[dict]:
    """One trick card of each action, and how many of the deck's trick cards have it."""
    counts, actions = Counter(TRICK_ACTIONS), action_names()
    return [
        {
            "action": action,
            "name": actions[action],
            "count": counts[action],
            "label": card_label({"kind": "trick", "action": action}),
        }
        for action in counts
    ]


# -- the renderer's JSON ---------------------------------------------------------------------


def board(state: GameState, names: dict, *, acting: bool = False) -> dict:
    """One board as the game page gets it: ``player_view`` from red's side.

    ``acting`` keeps red's legal moves, so the board draws red's buttons as red sees
    them; the other examples are watched, as in a replay."""
    view = player_view(state, RED)
    if not acting:
        view["legal"] = []
    result = view["result"]
    return {
        "view": view,
        "watching": not acting,
        "outcome": outcome_sentence(result, names, watching=True) if result else None,
    }


def boards_json(names: dict) -> dict:
    distribution, scoring = examples(), final_scores()
    return {
        "players": names,
        "boards": {
            "choosing": board(distribution.choosing, names, acting=True),
            "before": board(distribution.before, names, acting=True),
            "after": board(distribution.after, names),
            "trick": board(distribution.trick, names, acting=True),
            "final": board(scoring.final, names),
        },
    }


# -- example (a): the distribution, card by card ---------------------------------------------


def placed_values(state: GameState, seat: int) -> list[int]:
    """The values of a player's dice on the tavern, lowest first (a die shows its card's number)."""
    dice = state.players[seat].dice
    return sorted(state.number_of(i) for i in range(TAVERN_SIZE) for _ in range(dice[i]))


def pips_beside(state: GameState, seat: int, number: int) -> str:
    """The dice of ``seat`` on the cards beside position ``number``, as a sum: "2 + 2 = 4"."""
    values = [v for v in placed_values(state, seat) if abs(v - number) == 1]
    if not values:
        return "0"
    if len(values) == 1:
        return str(values[0])
    return f"{' + '.join(map(str, values))} = {sum(values)}"


def why(outcome: dict, before: GameState, names: dict) -> str:
    """One card of the round-end report in words: who took it, and why."""
    red, blue = len(outcome["my_dice"]), len(outcome["opponent_dice"])
    reason = outcome["reason"]
    if reason == "unclaimed":
        return _("Nobody placed a die here, so the card leaves the game.")
    taker = names.get(outcome["to"] or "", "")
    if reason == "alone":
        n = red or blue
        return ngettext(
            "Only %(name)s has a die here, so %(name)s takes the card.",
            "Only %(name)s has dice here (%(n)s), so %(name)s takes the card.",
            n,
        ) % {"name": taker, "n": n}
    if reason == "majority":
        return _("%(name)s has more dice here (%(more)s against %(fewer)s) and takes the card.") % {
            "name": taker,
            "more": max(red, blue),
            "fewer": min(red, blue),
        }
    number = outcome["number"]
    sums = {
        "red": names["me"],
        "blue": names["opponent"],
        "red_pips": pips_beside(before, RED, number),
        "blue_pips": pips_beside(before, BLUE, number),
    }
    tied = ngettext(
        "Both have %(n)s die here: a tie.", "Both have %(n)s dice here: a tie.", red
    ) % {"n": red}
    beside = (
        _(
            "On the cards beside it, %(red)s's dice add up to %(red_pips)s"
            " and %(blue)s's to %(blue_pips)s."
        )
        % sums
    )
    if reason == "tie":
        decided = _("The sums are equal too, so the card leaves the game.")
    else:
        decided = _("%(name)s has the higher sum and takes the card.") % {"name": taker}
    return " ".join((tied, beside, decided))


def heading(outcome: dict, names: dict) -> str:
    """Where one card went: "Position 2 (Dutch 3) goes to Blue."."""
    parts = {"number": outcome["number"], "card": card_label(outcome["card"])}
    if outcome["to"] is None:
        return _("Position %(number)s (%(card)s) is removed.") % parts
    return _("Position %(number)s (%(card)s) goes to %(name)s.") % {
        **parts,
        "name": names[outcome["to"]],
    }


def distribution_context(example, names: dict) -> dict:
    report = player_view(example.after, RED)["last_round"]
    seats = {0: names["me"], 1: names["opponent"]}
    join = pgettext("between numbers of a list", ", ").join
    return {
        "red_values": join(map(str, placed_values(example.before, RED))),
        "blue_values": join(map(str, placed_values(example.before, BLUE))),
        "direction": example.before.direction,
        "cards": [
            {
                "number": c["number"],
                "to": c["to"] or "removed",
                "heading": heading(c, names),
                "why": why(c, example.before, names),
            }
            for c in sorted(report["cards"], key=lambda c: c["number"])
        ],
        "moves": [line for e in example.events if (line := event_line(e, seats))],
    }


# -- example (b): the final score, crew by crew ----------------------------------------------


def crew_values(cards: list[dict]) -> str:
    """A crew's cards by value, wild sailors marked: "3, 2 (wild), 2 (wild)"."""
    if not cards:
        return pgettext("no crew on either side", "—")
    shown = [
        pgettext("value of a wild sailor", "%(value)s (wild)") % {"value": c["value"]}
        if c["wild"]
        else str(c["value"])
        for c in cards
    ]
    return pgettext("between numbers of a list", ", ").join(shown)


def crew_outcome(red: int, blue: int, names: dict) -> str:
    if not blue:
        return _(
            "Only %(name)s has these sailors: %(name)s keeps them and scores %(strength)s."
        ) % {
            "name": names["me"],
            "strength": red,
        }
    if not red:
        return _(
            "Only %(name)s has these sailors: %(name)s keeps them and scores %(strength)s."
        ) % {
            "name": names["opponent"],
            "strength": blue,
        }
    if red == blue:
        return _("Equal strength (%(strength)s each): all of them are discarded.") % {
            "strength": red
        }
    strong, weak = ("me", "opponent") if red > blue else ("opponent", "me")
    return _(
        "%(strong)s is stronger (%(more)s against %(less)s) and scores the strength of "
        "%(weak)s's crew: %(less)s."
    ) % {
        "strong": names[strong],
        "weak": names[weak],
        "more": max(red, blue),
        "less": min(red, blue),
    }


def scoring_context(final: GameState, names: dict) -> dict:
    view = player_view(final, RED)
    result = view["result"]
    nation_name = nation_names()
    rows = []
    for nation in NATIONS:
        red, blue = view["me"]["strength"][nation], view["opponent"]["strength"][nation]
        if not red and not blue:
            continue
        rows.append(
            {
                "nation": nation,
                "name": nation_name[nation],
                "red": crew_values(view["me"]["sailors"][nation]),
                "blue": crew_values(view["opponent"]["sailors"][nation]),
                "outcome": crew_outcome(red, blue, names),
                "red_points": result["me"]["by_nation"][nation],
                "blue_points": result["opponent"]["by_nation"][nation],
            }
        )
    unused = {"me": len(view["me"]["tricks"]), "opponent": len(view["opponent"]["tricks"])}
    tricks = [
        ngettext(
            "%(name)s kept %(n)s trick card unused: %(n)s point.",
            "%(name)s kept %(n)s trick cards unused: %(n)s points.",
            unused[side],
        )
        % {"name": names[side], "n": unused[side]}
        for side in ("me", "opponent")
        if unused[side]
    ]
    wild = [n for n in NATIONS for c in view["me"]["sailors"][n] if c["wild"]]
    return {
        "rows": rows,
        "wilds": {"n": len(wild), "nation": nation_name[wild[0]] if wild else ""},
        "tricks": {
            "red": unused["me"],
            "blue": unused["opponent"],
            "outcome": " ".join(tricks) or _("No unused trick cards."),
            "red_points": result["me"]["tricks"],
            "blue_points": result["opponent"]["tricks"],
        },
        "totals": {"red": result["me"]["total"], "blue": result["opponent"]["total"]},
        "winner": result["winner"],
        "outcome": outcome_sentence(result, names, watching=True),
    }
