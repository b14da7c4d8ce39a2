"""The JSON shapes of games and invitations, as the API and the sockets send them."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from django.utils import timezone
from django.utils.translation import get_language

from accounts.models import Holiday
from ratings.queries import game_ratings, rating_changes

from . import rules
from .access import Seating, seating
from .clock import effective_deadline
from .models import Command, Event, Game, Invitation
from .rules import fairness
from .words import describe_events, outcome_sentence, round_start_line, shared_out

RECENT_COMMANDS = 6
CHAT_SHOWN = 50


@dataclass(frozen=True)
class GameReads:
    """What a game's JSON needs besides the game and its players, read once for every
    viewer: the recent commands and their events, both players' holidays, the chat, and
    once the game is over the rematch offer and the rating changes."""

    commands: list  # the recent commands, newest first: {"seat", "version"}
    events: list  # (seq, event) after the oldest of them
    floor: int
    holidays: list
    chat: list
    rematch: Invitation | None
    ratings: dict | None
    today: dt.date
    # Each recent command in words, by (language, version): the same for every side, and
    # for every later read that still shows the command.
    told: dict = field(default_factory=dict)
    # The reason a moderator gave for annulling the game ("" for every other game).
    note: str = ""


def _floor(commands: list) -> int:
    """The version before the oldest recent command: its events start after it."""
    return commands[-1]["version"] if len(commands) > RECENT_COMMANDS else 0


def _holidays_since(game: Game, today: dt.date) -> dt.date:
    """The holidays that end on or after this day matter: the deadline and the "away"
    notes need them."""
    return min(today, game.turn_started_at.date()) if game.turn_started_at else today


def read_game(seating: Seating) -> GameReads:
    """Five queries for a game in progress (seven once it is over, eight if annulled),
    whoever reads it."""
    game = seating.game
    commands = list(
        Command.objects.filter(game=game)
        .order_by("-version")
        .values("seat", "version")[: RECENT_COMMANDS + 1]
    )
    floor = _floor(commands)
    events = Event.objects.filter(game=game, seq__gt=floor).order_by("seq")
    today = timezone.now().date()
    since = _holidays_since(game, today)
    ids = [p.pk for p in seating.players]
    over = game.status != Game.Status.ACTIVE
    return GameReads(
        commands=commands,
        events=[
            (seq, {"type": kind, **payload})
            for seq, kind, payload in events.values_list("seq", "kind", "payload")
        ]
        if commands
        else [],
        floor=floor,
        holidays=list(Holiday.objects.filter(user_id__in=ids, end__gte=since)),
        chat=recent_chat(game),
        rematch=game.rematches.order_by("-created_at").first() if over else None,
        ratings=rating_changes(game),
        today=today,
        note=ending_note(game),
    )


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


def read_after(reads: GameReads, game: Game, commands: list, events: list) -> GameReads | None:
    """What ``read_game`` would read now, from an earlier read of the same game and what
    was written since: ``commands``, newest first, as ``read_game`` reads them, and all
    the events after that read's version, as (seq, event) in order.

    None where that cannot be told without reading more: a game that ended has ratings
    and a rematch to read, and before a game's first command its opening events were
    not read. The chat and the holidays are carried over: whatever changes them makes
    the earlier read stale (a chat line) or announces the game (a holiday).
    """
    if game.status != Game.Status.ACTIVE or not reads.commands:
        return None
    commands = [*commands, *reads.commands][: RECENT_COMMANDS + 1]
    floor = _floor(commands)
    today = timezone.now().date()
    since = _holidays_since(game, today)
    return GameReads(
        commands=commands,
        events=[(seq, e) for seq, e in [*reads.events, *events] if seq > floor],
        floor=floor,
        holidays=[h for h in reads.holidays if h.end >= since],
        chat=reads.chat,
        rematch=None,
        ratings=None,
        today=today,
        told={key: text for key, text in reads.told.items() if key[1] > floor},
    )


def read_after_command(reads: GameReads, game: Game, seat: int, appended) -> GameReads | None:
    """``read_after`` one command of ``seat`` that appended ``appended`` (seq, event):
    what the process that applied it knows without a query."""
    version = appended[-1][0] if appended else game.version
    events = [(seq, dict(event)) for seq, event in appended]
    return read_after(reads, game, [{"seat": seat, "version": version}], events)


def read_since(seating: Seating, reads: GameReads, version: int) -> GameReads | None:
    """``read_after`` the read of ``version``: two queries, for the commands and the
    events since (None: read the whole game)."""
    game = seating.game
    if game.status != Game.Status.ACTIVE or not reads.commands:
        return None
    commands = list(
        Command.objects.filter(game=game, version__gt=version)
        .order_by("-version")
        .values("seat", "version")[: RECENT_COMMANDS + 1]
    )
    events = Event.objects.filter(game=game, seq__gt=version).order_by("seq")
    return read_after(
        reads,
        game,
        commands,
        [
            (seq, {"type": kind, **payload})
            for seq, kind, payload in events.values_list("seq", "kind", "payload")
        ],
    )


def _told(reads: GameReads) -> list[tuple[dict, int, str]]:
    """The recent commands, newest first, each as (command, the version before it, its
    words in the current language); the words are kept in ``reads.told``."""
    commands, told, language = reads.commands, [], get_language()
    for i, command in enumerate(commands[:RECENT_COMMANDS]):
        version = command["version"]
        after = commands[i + 1]["version"] if i + 1 < len(commands) else reads.floor
        text = reads.told.get((language, version))
        if text is None:
            text = describe_events([e for seq, e in reads.events if after < seq <= version])
            reads.told[language, version] = text
        told.append((command, after, text))
    return told


def recent_actions(reads: GameReads, side: int) -> list[dict]:
    """The last commands in words, newest first, each told from ``side``'s point of view."""
    return [
        {"by": "me" if command["seat"] == side else "opponent", "text": text}
        for command, _, text in _told(reads)
        if text
    ]


def since_last_move(reads: GameReads, side: int, names: dict, view: dict) -> dict | None:
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


def game_json(seating: Seating, reads: GameReads | None = None) -> dict:
    """A game as its viewer sees it: a player from their seat, anyone else from seat 0's side.

    ``reads``: ``read_game(seating)``, when several viewers' JSON is built from one read."""
    reads = reads or read_game(seating)
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
        "bots": {"me": me.bot_level or None, "opponent": opponent.bot_level or None},
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
        "scheme": fairness.SCHEME_V1,
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


def clock_json(seating: Seating, reads: GameReads) -> dict:
    game, watching, today = seating.game, seating.watching, reads.today
    holidays = reads.holidays
    mover_holidays = [h for h in holidays if h.user_id == game.to_move_id]
    mover = seating.players[0] if seating.players[0].pk == game.to_move_id else seating.players[1]
    deadline = effective_deadline(game, mover_holidays, mover.zone)
    sides = {seating.me.pk: "me", seating.opponent.pk: "opponent"}
    viewer = None if watching else seating.me.pk
    return {
        "deadline": deadline.isoformat() if deadline else None,
        "extended": game.extended,
        "can_extend": bool(
            not watching
            and game.status == Game.Status.ACTIVE
            and game.to_move_id not in (None, viewer)
            and not game.extended
            and not mover.is_bot
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


def rematch_json(seating: Seating, offer: Invitation | None) -> dict | None:
    if offer is None:
        return None  # offered only once a game is over
    return {
        "invitation": offer.pk,
        "by": "me" if offer.from_user_id == seating.me.pk else "opponent",
        "status": offer.status,
        "game": offer.game_id,
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
        "opponent_bot": opponent.bot_level or None,
        "your_turn": game.to_move_id == user.pk,
        "round": game.round,
        "extra_wild": game.extra_wild,
        "days_per_move": game.days_per_move,
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
        "commitment": invitation.fair_commitment or None,  # its server seed stays secret
        "client_seed": invitation.client_seed,
        "status": invitation.status,
        "game": invitation.game_id,
        "rematch_of": invitation.rematch_of_id,
        "created_at": invitation.created_at.isoformat(),
    }
