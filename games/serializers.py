"""The JSON shapes of games and invitations, as the API and the sockets send them.

Functions of what was read, keeping nothing: what a game's JSON needs is read, and kept
for the sockets, by ``games/live/reads.py`` (the read cache and its rules); a ``reads``
argument here is one of its ``GameReads`` (not imported: the cache builds on the
shapes, never the other way).
"""

from __future__ import annotations

from django.utils import timezone
from django.utils.translation import get_language

from ratings.queries import game_ratings

from . import rules
from .access import Seating, seating
from .clock import Bank, effective_deadline
from .models import Event, Game, Invitation
from .words import describe_events, outcome_sentence, round_start_line, shared_out

RECENT_COMMANDS = 6  # the last commands a board tells in words
CHAT_SHOWN = 50


def ending_note(game: Game) -> str:
    """The reason the moderator gave for annulling ``game``, from its ``game_ended`` event;
    "" for any other game. A list's query may have read it already (``ending_note``)."""
    if game.status != Game.Status.ANNULLED:
        return ""
    if hasattr(game, "ending_note"):
        return game.ending_note or ""
    payload = (
        Event.objects.filter(game=game, kind="game_ended").values_list("payload", flat=True).first()
    )
    return (payload or {}).get("note") or ""


def _told(reads) -> list[tuple[dict, int, str]]:
    """The recent commands, newest first, each as (command, the version before it, its
    words in the current language); the words are kept in ``reads.told``."""
    commands, told, language = reads.commands, [], get_language()
    # reads.told outlives this read while the command stays recent (live.reads, rule 8)
    for i, command in enumerate(commands[:RECENT_COMMANDS]):
        version = command["version"]
        after = commands[i + 1]["version"] if i + 1 < len(commands) else reads.floor
        text = reads.told.get((language, version))
        if text is None:
            text = describe_events([e for seq, e in reads.events if after < seq <= version])
            reads.told[language, version] = text
        told.append((command, after, text))
    return told


def recent_actions(reads, side: int) -> list[dict]:
    """The last commands in words, newest first, each told from ``side``'s point of view."""
    return [
        {"by": "me" if command["seat"] == side else "opponent", "text": text}
        for command, _, text in _told(reads)
        if text
    ]


def since_last_move(reads, side: int, names: dict, view: dict) -> dict | None:
    """What happened since ``side``'s last command, for the board's "since your last
    move" summary: the opponent's commands in words, the round end and the round start
    among them, and what to highlight (the dice they placed in this round, and whether
    the round end is new). None once ``side`` has moved since, or before anything."""
    lines: list[dict] = []
    placed: list[int] = []
    round_end = False
    for command, after, text in reversed(_told(reads)):
        if command["seat"] == side:
            lines, placed, round_end = [], [], False  # only what came after my own move
            continue
        told = not text  # the command's words go before its first event of its own
        for seq, event in reads.events:
            if not after < seq <= command["version"]:
                continue
            kind = event["type"]
            if not told and "seat" in event:
                lines.append({"by": "opponent", "text": text})
                told = True
            if kind == "placed":
                placed.extend(event["values"])
            elif kind == "shanghai_called" and view["last_round"]:
                round_end = True
                lines.append({"text": shared_out(view["last_round"], names[1 - side])})
            elif kind == "round_started":
                placed = []
                lines.append({"text": round_start_line(event, side, names)})
    if not lines:
        return None
    return {"lines": lines, "placed": placed, "round_end": round_end}


def game_json(seating: Seating, reads) -> dict:
    """A game as its viewer sees it: a player from their seat, anyone else from seat 0's side.

    ``reads``: ``live.reads.read_game(seating)``, or a read kept for several viewers."""
    game, side, watching = seating.game, seating.side, seating.watching
    view = rules.player_view(game.rules_state(), side)
    if watching:
        view["legal"] = []
    me, opponent = seating.me, seating.opponent
    names = {"me": me.username, "opponent": opponent.username}
    result = view["result"]
    return {
        "id": game.pk,
        "version": game.version,
        "status": game.status,
        "extra_wild": game.extra_wild,
        "days_per_move": game.days_per_move,
        "rated": game.rated,
        "ratings": game_ratings(game, me.pk, opponent.pk, reads.ratings or {}),
        "watching": watching,
        "players": names,
        "bots": {"me": me.program_mark or None, "opponent": opponent.program_mark or None},
        # a guest plays the computer only: no reports, chat or invitations (docs/operations.md)
        "guest": not watching and me.is_guest,
        "outcome": outcome_sentence(result, names, watching, reads.note) if result else None,
        "created_at": game.created_at.isoformat(),
        "last_move_at": game.last_move_at.isoformat() if game.last_move_at else None,
        "recent": recent_actions(reads, side),
        "since": None
        if watching or result
        else since_last_move(reads, side, {side: me.username, 1 - side: opponent.username}, view),
        "clock": clock_json(seating, reads),
        "rematch": rematch_json(seating, reads.rematch),
        "chat": [chat_json(m, me.pk) for m in reads.chat],
        "fairness": fairness_json(game),
        "view": view,
    }


def fairness_json(game: Game) -> dict | None:
    """How to check the game's deck and dice (``docs/fairness.md``): the commitment and
    both players' seeds from the start, the server's seed once the game is over. None for
    a game from before the scheme."""
    if not game.fair_seed:
        return None
    data = {
        "scheme": game.fair_scheme,
        "commitment": game.fair_commitment,
        "client_seeds": list(game.client_seeds),
    }
    if game.status != Game.Status.ACTIVE:
        data["server_seed"] = game.fair_seed
    return data


def recent_chat(game: Game) -> list:
    newest = game.chat.filter(hidden=False).order_by("-created_at", "-id")[:CHAT_SHOWN]
    return list(reversed(newest))


def chat_json(message, my_user_id: int) -> dict:
    return {
        "id": message.pk,
        "by": "me" if message.user_id == my_user_id else "opponent",
        "text": message.text,
        "at": message.created_at.isoformat(),
    }


def clock_json(seating: Seating, reads) -> dict:
    game, watching, today = seating.game, seating.watching, reads.today
    holidays = reads.holidays
    mover_holidays = [h for h in holidays if h.user_id == game.to_move_id]
    mover = seating.players[0] if seating.players[0].pk == game.to_move_id else seating.players[1]
    deadline = effective_deadline(game, mover_holidays, mover.zone)
    sides = {seating.me.pk: "me", seating.opponent.pk: "opponent"}
    viewer = None if watching else seating.me.pk
    banks = None
    if game.banks is not None:
        seat = 0 if seating.players[0].pk == seating.me.pk else 1
        banks = {"me": game.banks[seat], "opponent": game.banks[1 - seat]}
    terms = bank_json(game)
    return {
        "kind": "days" if terms is None else "bank",
        "deadline": deadline.isoformat() if deadline else None,
        "bank": terms,
        "banks": banks,
        "extended": game.extended,
        "can_extend": bool(
            not watching
            and game.status == Game.Status.ACTIVE
            and game.to_move_id not in (None, viewer)
            and not game.extended
            and not mover.is_computer
        ),
        "away": {
            side: [
                {"start": h.start.isoformat(), "end": h.end.isoformat()}
                for h in holidays
                if h.user_id == user_id and h.end >= today
            ]
            for user_id, side in sides.items()
        },
    }


def bank_json(row) -> dict | None:
    """A game's, an invitation's or a tournament's time bank terms (None: days per move)."""
    bank = Bank.of(row)
    if bank is None:
        return None
    return {
        "start_hours": bank.start_hours,
        "increment_hours": bank.increment_hours,
        "cap_hours": bank.cap_hours,
    }


def rematch_json(seating: Seating, offer: Invitation | None) -> dict | None:
    if offer is None:
        return None  # offered only once a game is over
    return {
        "invitation": offer.pk,
        "by": "me" if offer.from_user_id == seating.me.pk else "opponent",
        "status": offer.status,
        "game": offer.game_id,
        "commitment": offer.fair_commitment or None,  # what accepting answers
    }


def game_summary(game: Game, user) -> dict:
    """One line of a player's game list, without building the whole view."""
    seats = seating(game, user)
    seat = seats.seat
    scores = (game.score0, game.score1)
    opponent = seats.opponent
    mover = next((p for p in seats.players if p.pk == game.to_move_id), None)
    deadline = effective_deadline(game, mover.holidays.all(), mover.zone) if mover else None
    today = timezone.now().date()
    return {
        "id": game.pk,
        "version": game.version,
        "status": game.status,
        "opponent": opponent.username,
        "opponent_bot": opponent.program_mark or None,
        "your_turn": game.to_move_id == user.pk,
        "round": game.round,
        "extra_wild": game.extra_wild,
        "days_per_move": game.days_per_move,
        "bank": bank_json(game),
        "rated": game.rated,
        "result": None
        if game.status != Game.Status.FINISHED
        else {
            "winner": None
            if game.winner_id is None
            else ("me" if game.winner_id == user.pk else "opponent"),
            "reason": game.result_reason,
            "me": scores[seat],
            "opponent": scores[1 - seat],
        },
        "outcome": summary_outcome(game, user, seat, opponent),
        "last_move_at": game.last_move_at.isoformat() if game.last_move_at else None,
        "deadline": _iso(deadline),
        "opponent_away": [
            {"start": h.start.isoformat(), "end": h.end.isoformat()}
            for h in opponent.holidays.all()
            if h.end >= today
        ],
    }


def summary_outcome(game: Game, user, seat: int, opponent) -> str | None:
    """The board's outcome sentence for a game that is over, from its row alone, told to
    ``user`` in ``seat`` (None while the game goes on)."""
    if game.status == Game.Status.ACTIVE or not game.result_reason:
        return None
    scores = (game.score0 or 0, game.score1 or 0)
    winner = None
    if game.winner_id is not None:
        winner = "me" if game.winner_id == user.pk else "opponent"
    result = {
        "reason": game.result_reason,
        "winner": winner,
        "me": {"total": scores[seat]},
        "opponent": {"total": scores[1 - seat]},
    }
    names = {"me": user.username, "opponent": opponent.username}
    return outcome_sentence(result, names, watching=False, note=ending_note(game))


def _iso(moment) -> str | None:
    return moment.isoformat() if moment else None


def invitation_json(invitation: Invitation) -> dict:
    return {
        "id": invitation.pk,
        "from": invitation.from_user.username,
        "to": invitation.to_user.username if invitation.to_user else None,
        "extra_wild": invitation.extra_wild,
        "days_per_move": invitation.days_per_move,
        "rated": invitation.rated,
        "message": invitation.message,
        "min_rating": invitation.min_rating,
        "max_rating": invitation.max_rating,
        "max_pace": invitation.max_pace,
        "bank": bank_json(invitation),
        "commitment": invitation.fair_commitment or None,  # its server seed stays secret
        "client_seed": invitation.client_seed,
        "status": invitation.status,
        "game": invitation.game_id,
        "rematch_of": invitation.rematch_of_id,
        "created_at": invitation.created_at.isoformat(),
    }


def note_json(note) -> dict:
    """A player's own note (``queries.note_of``), or the empty one."""
    if note is None:
        return {"text": "", "updated_at": None}
    return {"text": note.text, "updated_at": note.updated_at.isoformat()}
