"""What one player may see: the board from their side, with nothing secret in it."""

from __future__ import annotations

from dataclasses import replace

from .cards import CARDS, EXTRA_WILD_IDS, NATIONS, WILD_VALUE
from .engine import legal_commands
from .scoring import score
from .state import ROUNDS, TAVERN_SIZE, TURN, CardOutcome, GameState, Score


def player_view(state: GameState, seat: int) -> dict:
    """The JSON-ready view of ``state`` for ``seat``: "me" is ``seat``, "opponent" the other.

    The deck order never appears; only how many cards are left and which cards (in
    no order) are still to come, which both players can work out from the table.
    """
    rel = _relative(seat)
    result = state.result
    return {
        "status": "finished" if result else "active",
        "round": state.round,
        "rounds": ROUNDS,
        "deck_count": len(state.deck),
        "phase": state.phase,
        "turn": rel(state.turn),
        "start_player": rel(state.start_player),
        "direction": state.direction,
        "roll": None if state.roll is None else {"dice": list(state.roll), "by": rel(state.turn)},
        "tavern": [_slot(state, seat, i) for i in range(TAVERN_SIZE)],
        "me": _player(state, seat),
        "opponent": _player(state, 1 - seat),
        "legal": legal_commands(state, seat),
        "must_shanghai": must_shanghai(state, seat),
        "last_round": _last_round(state, seat),
        "round_end": round_end_shown(state),
        "score_table": _score_table(state, seat),
        "projected": _sides(score(state.players), seat),
        "result": None
        if result is None
        else {
            "winner": rel(result.winner),
            "reason": result.reason,
            "played": played(state),
            "nations": _crews(state, seat),
            **_sides(result.scores, seat),
        },
        "extra_wild": state.extra_wild,
    }


def _relative(seat: int):
    def rel(other_seat: int | None) -> str | None:
        if other_seat is None:
            return None
        return "me" if other_seat == seat else "opponent"

    return rel


def _dice_list(count: int, number: int) -> list[int]:
    # A die on a card shows that card's number.
    return [number] * count


def _slot(state: GameState, seat: int, index: int) -> dict:
    card_id = state.tavern[index]
    number = state.number_of(index) if state.direction else None
    mine, theirs = state.players[seat].dice[index], state.players[1 - seat].dice[index]
    return {
        "card": CARDS[card_id].to_json() if card_id else None,
        "number": number,
        "my_dice": _dice_list(mine, number or 0),
        "opponent_dice": _dice_list(theirs, number or 0),
    }


def trick_block(state: GameState, seat: int, card_id: str) -> str | None:
    """Why the trick card ``card_id`` in ``seat``'s hand cannot be used this round, or
    None if it can (on the owner's turn, with a roll to place, the engine then offers it).

    Trick cards join a hand only at a Shanghai, so a card in hand was won at the last one
    or before; the variant's extra card was there from the start. Between a Shanghai and
    the next deal (a step of the replay) the cards just won belong to the round ending.
    """
    report = state.last_round
    just_won = report is not None and any(o.card == card_id and o.to == seat for o in report.cards)
    if just_won and report.round == ROUNDS:
        return "won_in_last_round"
    if state.finished:
        return "game_over"
    if just_won and report.round == state.round:
        return "won_this_round"
    if state.players[seat].trick_used:
        return "trick_used"
    return None


def must_shanghai(state: GameState, seat: int) -> str | None:
    """On ``seat``'s turn with fewer than two dice left a roll is not allowed and the
    player must call Shanghai: "no_dice" or "one_die"; else None."""
    if state.finished or state.turn != seat or state.phase != TURN:
        return None
    supply = state.players[seat].supply
    if supply >= 2:
        return None
    return "no_dice" if supply == 0 else "one_die"


def round_end_shown(state: GameState) -> bool:
    """Whether the last Shanghai's sharing out is still the news: from the Shanghai until
    the next round's first roll, and at the game's end."""
    if state.last_round is None:
        return False
    if state.finished:
        return True
    return state.roll is None and all(p.placed == 0 for p in state.players)


def played(state: GameState) -> bool:
    """Whether anything was played: a card won on either side and a point counted. A game
    over without (an abort, an annulment, a timeout before play) is told by its sentence."""
    won = any(p.sailors or p.wilds or p.tricks for p in state.players)
    return won and any(s.total for s in score(state.players))


def _crews(state: GameState, seat: int) -> dict:
    """Each nation's outcome at the end: "nobody" (no crew), "uncontested" (the only crew
    keeps its strength), "tie" (both discarded) or "contested" (the stronger crew takes
    the weaker's strength), with the side that scores."""
    mine, theirs = state.players[seat].strengths(), state.players[1 - seat].strengths()
    crews = {}
    for nation in NATIONS:
        a, b = mine[nation], theirs[nation]
        if not a and not b:
            outcome, winner = "nobody", None
        elif a == b:
            outcome, winner = "tie", None
        else:
            outcome = "contested" if a and b else "uncontested"
            winner = "me" if a > b else "opponent"
        crews[nation] = {"outcome": outcome, "winner": winner}
    return crews


def _player(state: GameState, seat: int) -> dict:
    player = state.players[seat]
    sailors: dict[str, list[dict]] = {nation: [] for nation in NATIONS}
    for card_id in player.sailors:
        card = CARDS[card_id]
        sailors[card.nation].append({"id": card_id, "value": card.value, "wild": False})
    for card_id, nation in player.wilds:
        sailors[nation].append({"id": card_id, "value": WILD_VALUE, "wild": True})
    return {
        "supply": player.supply,
        "placed_this_round": player.placed,
        "sailors": sailors,
        "strength": player.strengths(),
        "tricks": [_trick(state, seat, c) for c in player.tricks],
        "trick_used_this_round": player.trick_used,
    }


def _trick(state: GameState, seat: int, card_id: str) -> dict:
    block = trick_block(state, seat, card_id)
    return {
        "id": card_id,
        "action": CARDS[card_id].action,
        "extra": card_id in EXTRA_WILD_IDS,  # the variant's card, held from the start
        "usable": block is None,
        "block": block,
    }


def _outcome(outcome: CardOutcome, seat: int) -> dict:
    other = 1 - seat
    neighbours = outcome.neighbours
    return {
        "card": CARDS[outcome.card].to_json(),
        "number": outcome.number,
        "my_dice": _dice_list(outcome.dice[seat], outcome.number),
        "opponent_dice": _dice_list(outcome.dice[other], outcome.number),
        "my_neighbours": neighbours[seat] if neighbours else None,
        "opponent_neighbours": neighbours[other] if neighbours else None,
        "to": _relative(seat)(outcome.to),
        "reason": outcome.reason,
    }


def _last_round(state: GameState, seat: int) -> dict | None:
    report = state.last_round
    if report is None:
        return None
    return {
        "round": report.round,
        "called_by": _relative(seat)(report.called_by),
        "direction": report.direction,
        "cards": [_outcome(o, seat) for o in report.cards],
    }


def as_known(state: GameState) -> GameState:
    """``state`` as either player knows it: the deck's cards in the catalogue's order,
    never the deck's own. Everything else on the table is open to both. (The dice still
    to come are in no state at all: the server draws them from its secret seed as they
    are thrown.)"""
    return replace(state, deck=tuple(sorted(state.deck, key=_catalogue_order)))


def still_to_come(state: GameState) -> list[str]:
    """The cards in the tavern and the deck, in a fixed order that says nothing of the deck's."""
    cards = [c for c in state.tavern if c is not None] + list(state.deck)
    return sorted(cards, key=_catalogue_order)


_ORDER = {card_id: i for i, card_id in enumerate(CARDS)}


def _catalogue_order(card_id: str) -> int:
    return _ORDER[card_id]


def _score_table(state: GameState, seat: int) -> dict:
    me, opponent = state.players[seat], state.players[1 - seat]
    mine, theirs = me.strengths(), opponent.strengths()
    to_come = [CARDS[c] for c in still_to_come(state)]
    cards = dict.fromkeys(NATIONS, 0)
    points = dict.fromkeys(NATIONS, 0)
    tricks_coming = 0
    for card in to_come:
        if card.kind == "trick":
            tricks_coming += 1
        else:
            cards[card.nation] += 1
            points[card.nation] += card.value
    nations = [
        {
            "nation": nation,
            "me": mine[nation],
            "opponent": theirs[nation],
            "remaining_cards": cards[nation],
            "remaining_points": points[nation],
        }
        for nation in NATIONS
    ]
    return {
        "nations": nations,
        "tricks": {
            "me": len(me.tricks),
            "opponent": len(opponent.tricks),
            "remaining_cards": tricks_coming,
            "remaining_points": tricks_coming,
        },
        "still_to_come": [c.to_json() for c in to_come],
    }


def _score_json(s: Score) -> dict:
    return {"total": s.total, "by_nation": dict(s.by_nation), "tricks": s.tricks}


def _sides(scores: tuple[Score, Score], seat: int) -> dict:
    return {"me": _score_json(scores[seat]), "opponent": _score_json(scores[1 - seat])}
