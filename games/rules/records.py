"""Checking an exported game record against the rules, without any server.

``GET /api/games/<id>/export/`` gives a finished game's whole event log and the result
the server recorded. ``check_record(record)`` proves the log legal, not only consistent:
it has the engine make every event again. The first two come from ``new_game``, the
server's endings ("timeout", "adjudicated", "annulled") from ``end_game``, and every
other event, or the group of events one command causes, from ``decide`` with the
command a player must have sent (a roll, a direction, a placed die, a trick, a Shanghai,
a resignation or an abort). The dice and the deck order are taken from the log by an rng
that refuses a die outside 1–6 and a deck that is not the 48 tavern cards. The engine's
events must equal the recorded ones exactly, key for key; only then are they folded.

It also checks that the events are numbered 1, 2, 3, … and reach the end of the game,
and compares the outcome with the recorded result (reason, winner, scores, status) and
the variant. A record of the wrong shape (not an object, events that are not a list,
entries with missing keys or values of the wrong type, unknown event types) is refused
with a sentence, never with an exception. ``Check.bad_seq`` names the first event that
is malformed, illegal or not what the rules make of it.

A record with a ``fairness`` object (``docs/fairness.md``) is also held to its seeds,
under the scheme it names (hmac-sha256-v1 or hmac-sha256-v2): the server seed must be
there (a finished game has revealed it) as 64 hex digits, the client seeds a pair of
valid seeds, the commitment the SHA-256 of the server seed, and the deck, the first player
and every die what the stream of the seeds gives (``check_fairness``). Only then is
``Check.fair`` true. A record without a ``fairness`` object can still be legal, but its
deck and dice are NOT verified, and the command line says so in a line of its own.

The abort rule depends on the record's scheme: a game of hmac-sha256-v2 cannot be
aborted at all; a game made under the old rule (hmac-sha256-v1, or no fairness object)
could be aborted until each player had moved.

From the command line (prints the replayed result, every problem, whether the record is
legal and whether its deck and dice are verified; exits 1 on any problem, also for a file
that cannot be read or is not JSON, and 0 for a legal record even without fairness
data)::

    python -m games.rules.records game-42.json
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from . import fairness
from .cards import DECK
from .engine import SYSTEM_ENDINGS, Event, decide, end_game, evolve, new_game
from .illegal import IllegalCommand
from .state import PLACEMENT, SEATS, GameState

RECORD_FORMAT = "shanghaien-game"
RECORD_VERSION = 1


@dataclass(frozen=True)
class Check:
    ok: bool
    problems: tuple[str, ...]
    replayed: dict  # the result the events lead to: reason, winner (a seat or None), scores
    # The seq of the first event that is malformed, illegal or not what the rules make of
    # it. None when every event is sound, also when only the recorded result, the variant
    # or the record's format is wrong, or the log stops before the game ends.
    bad_seq: int | None = None
    # Whether the deck, the first player and every die were checked against revealed
    # seeds and found to be what they give. False for a record without fairness data.
    fair: bool = False


NOT_VERIFIED = "the deck and dice are NOT verified: the record has no fairness data"
VERIFIED = "the deck and dice are verified: they are what the seeds give"


def check_record(record: Any) -> Check:
    """Rebuild ``record["events"]`` with the engine and compare them and the outcome."""
    try:
        return _check(record)
    except Exception as error:  # untrusted input: a gap in the checks must still refuse
        return Check(False, (f"the record cannot be checked: {error!r}",), {})


# -- the record as a whole --------------------------------------------------------------


def _check(record: Any) -> Check:
    if not isinstance(record, dict):
        return Check(False, ("a game record is a JSON object",), {})
    if "format" in record and record["format"] != RECORD_FORMAT:
        return Check(False, (f"not a Shanghaien game record (format {record['format']!r})",), {})
    if "format_version" in record and not _same(record["format_version"], RECORD_VERSION):
        version = record["format_version"]
        return Check(False, (f"format_version {version!r} is unknown here (expected 1)",), {})
    entries = record.get("events")
    if not isinstance(entries, list) or not entries:
        return Check(False, ("the record holds no list of events",), {})

    found: list[tuple[int, str]] = []  # (index in the events, sentence)
    numbering = _numbering(entries)
    if numbering is not None:
        found.append(numbering)
    malformed = _first_malformed(entries)
    end = malformed[0] if malformed else len(entries)
    fair = record.get("fairness")
    unfair = _fairness(fair, entries[:end])
    if unfair is not None:
        found.append(unfair)
    legacy_abort = fair is None or (isinstance(fair, dict) and fair.get("scheme") == V1)
    state, illegal = _derive([entry["event"] for entry in entries[:end]], legacy_abort)
    if illegal is not None:
        index, sentence = illegal
        found.append((index, f"{_label(entries, index)}: {sentence}"))
    elif malformed is not None:
        found.append(malformed)
    found.sort(key=lambda pair: pair[0])
    bad_seq = _seq_of(entries, found[0][0]) if found and found[0][0] >= 0 else None
    problems = [sentence for _, sentence in found]
    if illegal is not None or malformed is not None or unfair is not None:
        return Check(False, tuple(problems), {}, bad_seq)
    if state is None or state.result is None:
        problems.append("the events do not reach the end of the game")
        return Check(False, tuple(problems), {}, bad_seq)

    result = state.result
    replayed = {
        "reason": result.reason,
        "winner": result.winner,
        "scores": [s.total for s in result.scores],
    }
    recorded = record.get("result")
    if not isinstance(recorded, dict):
        problems.append("the record holds no result object")
    else:
        for key, value in replayed.items():
            if not _same(recorded.get(key), value):
                problems.append(f"{key}: recorded {recorded.get(key)!r}, replayed {value!r}")
        status = _STATUS_OF.get(result.reason, "finished")
        if "status" in recorded and recorded["status"] != status:
            problems.append(f"status: recorded {recorded['status']!r}, replayed {status!r}")
    variant = record.get("extra_wild")
    if variant is not None and not _same(variant, state.extra_wild):
        problems.append("the variant differs from the game's first event")
    return Check(not problems, tuple(problems), replayed, bad_seq, fair=fair is not None)


# -- the seeds (docs/fairness.md) ------------------------------------------------------


def check_fairness(record: dict) -> str | None:
    """Whether a record's deck, first player and dice are what its revealed seeds give:
    None if they are, else why not, in a sentence (``NOT_VERIFIED`` for a record without
    fairness data)."""
    try:
        fair = record.get("fairness")
        found = _fairness(fair, record["events"])
    except Exception as error:  # untrusted input: refuse in words, never raise
        return f"the record cannot be checked: {error!r}"
    if found is None and fair is None:
        return NOT_VERIFIED
    return None if found is None else found[1]


V1 = fairness.SCHEME_V1
_HEX = frozenset("0123456789abcdef")


def _fairness(fair: Any, entries: list) -> tuple[int, str] | None:
    """Where the log departs from what the revealed seeds give: (index, sentence), with
    index -1 for the fairness data itself; None when it does not, or there is none."""
    if fair is None:
        return None
    if not isinstance(fair, dict):
        return -1, "the fairness data is not an object"
    scheme = fair.get("scheme")
    if scheme not in fairness.SCHEMES:
        known = " and ".join(fairness.SCHEMES)
        return -1, f"the fairness scheme {scheme!r} is unknown (known: {known})"
    seed, seeds = fair.get("server_seed"), fair.get("client_seeds")
    if seed is None:
        return -1, (
            "the record has a commitment but no server seed, so its deck and dice cannot "
            "be checked (a finished game reveals it)"
        )
    if not (isinstance(seed, str) and len(seed) == 2 * fairness.SEED_BYTES and set(seed) <= _HEX):
        return -1, "the server seed is not 64 hexadecimal digits"
    if not (
        isinstance(seeds, list) and len(seeds) == 2 and all(map(fairness.valid_client_seed, seeds))
    ):
        return -1, (
            "client_seeds is not a pair of valid seeds (0 to 64 printable ASCII characters each)"
        )
    key = bytes.fromhex(seed)
    if fairness.commitment(key) != fair.get("commitment"):
        return -1, "the commitment does not match the server seed"
    stream = fairness.Stream(key, seeds, scheme=scheme)
    for index, entry in enumerate(entries):
        event = entry["event"]
        if event["type"] == "game_started":
            deck = list(DECK)  # the 48 cards, whatever the record holds
            stream.shuffle(deck)
            for position, (got, expected) in enumerate(zip(event["deck"], deck, strict=False)):
                if got != expected:
                    where = f"{_label(entries, index)}: the deck differs from the seeds"
                    return index, f"{where} at position {position}"
            first = stream.draw(2)
            if event["first_player"] != first:
                label, recorded = _label(entries, index), event["first_player"]
                return index, f"{label}: the first player is {recorded}, the seeds give {first}"
        elif event["type"] == "rolled":
            for die, value in enumerate(event["dice"]):
                expected = stream.draw(6) + 1
                if value != expected:
                    label = _label(entries, index)
                    return index, f"{label}: die {die} is {value}, the seeds give {expected}"
    return None


# The server's game status for each way a game ends; any other reason is "finished".
_STATUS_OF = {"aborted": "aborted", "annulled": "annulled"}


def _numbering(entries: list) -> tuple[int, str] | None:
    for index, entry in enumerate(entries):
        seq = entry.get("seq") if isinstance(entry, dict) else None
        if not _same(seq, index + 1):
            return index, (
                "the events are not numbered 1, 2, 3, … without gaps: "
                f"entry {index + 1} has seq {seq!r}"
            )
    return None


def _seq_of(entries: list, index: int) -> int:
    """The seq an entry is known by: its own, if it is a whole number, else its position."""
    entry = entries[index]
    seq = entry.get("seq") if isinstance(entry, dict) else None
    return seq if _is_int(seq) else index + 1


def _label(entries: list, index: int) -> str:
    entry = entries[index]
    event = entry.get("event") if isinstance(entry, dict) else None
    kind = event.get("type") if isinstance(event, dict) else None
    if isinstance(kind, str) and kind in _SHAPES:
        return f"event {_seq_of(entries, index)} ({kind})"
    return f"event {_seq_of(entries, index)}"


# -- the shape of each event ------------------------------------------------------------


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _ints(counts: tuple[int, ...]) -> Callable[[Any], bool]:
    return lambda v: isinstance(v, list) and len(v) in counts and all(map(_is_int, v))


def _is_seat(value: Any) -> bool:
    return _is_int(value) and value in SEATS


def _is_card_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(c, str) for c in value)


def _is_str(value: Any) -> bool:
    return isinstance(value, str)


Shape = dict[str, tuple[Callable[[Any], bool], str]]
_SEAT: Shape = {"seat": (_is_seat, "a seat, 0 or 1")}
_WINNER: Shape = {"winner": (lambda v: v is None or _is_seat(v), "a seat, 0 or 1, or null")}

# The keys each event type needs and what their values must be, so that rebuilding an
# event never meets a value the engine cannot take. Extra keys are left to the exact
# comparison with the engine's events, which refuses them.
_SHAPES: dict[str, Shape] = {
    "game_started": {
        "deck": (_is_card_list, "a list of card ids"),
        "first_player": (_is_int, "a whole number"),
        "extra_wild": (lambda v: isinstance(v, bool), "true or false"),
    },
    "round_started": {
        "round": (_is_int, "a whole number"),
        "start_player": (_is_int, "a whole number"),
        "tavern": (_is_card_list, "a list of card ids"),
    },
    "rolled": {**_SEAT, "dice": (_ints((2,)), "a list of two whole numbers")},
    "direction_chosen": {**_SEAT, "one_at": (_is_str, "a string")},
    "placed": {**_SEAT, "values": (_ints((1, 2)), "a list of one or two whole numbers")},
    "trick_played": {
        **_SEAT,
        "card": (_is_str, "a card id"),
        "half": (_is_str, "a string"),
    },
    "shanghai_called": _SEAT,
    "game_ended": {"reason": (_is_str, "a string")},
}
_TRICK_HALVES: dict[str, Shape] = {
    "wild": {"nation": (_is_str, "a string")},
    "adjust": {"die": (_is_int, "a whole number"), "delta": (_is_int, "a whole number")},
}
_ENDINGS: dict[str, Shape] = {
    "completed": {},
    "resignation": {**_SEAT, **_WINNER},
    "aborted": {**_SEAT, **_WINNER},
    **{reason: _WINNER for reason in SYSTEM_ENDINGS},
}


def _first_malformed(entries: list) -> tuple[int, str] | None:
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict):
            return index, f"entry {index + 1} is not an object with 'seq' and 'event'"
        if "event" not in entry:
            return index, f"{_label(entries, index)}: the entry has no 'event'"
        problem = _shape_problem(entry["event"])
        if problem:
            return index, f"{_label(entries, index)}: {problem}"
    return None


def _shape_problem(event: Any) -> str | None:
    if not isinstance(event, dict):
        return "the event is not an object"
    kind = event.get("type")
    if not isinstance(kind, str) or kind not in _SHAPES:
        return f"unknown event type {kind!r}"
    shape = _SHAPES[kind]
    problem = _missing_or_wrong(event, shape)
    if problem or kind not in ("trick_played", "game_ended"):
        return problem
    if kind == "game_ended":
        if event["reason"] not in _ENDINGS:
            return f"unknown reason {event['reason']!r}; expected one of {', '.join(_ENDINGS)}"
        return _missing_or_wrong(event, _ENDINGS[event["reason"]])
    return _missing_or_wrong(event, _TRICK_HALVES.get(event["half"], {}))


def _missing_or_wrong(event: dict, shape: Shape) -> str | None:
    for key, (fits, what) in shape.items():
        if key not in event:
            return f"{key!r} is missing"
        if not fits(event[key]):
            return f"{key!r} is {event[key]!r}; it must be {what}"
    return None


# -- rebuilding the events with the engine -----------------------------------------------


class _Refused(Exception):
    """The event at ``index`` cannot stand, for ``reason``."""

    def __init__(self, index: int, reason: str):
        super().__init__(reason)
        self.index = index
        self.reason = reason


class _LogRng:
    """Hands the engine the random outcomes the log recorded, refusing impossible ones.

    ``values`` is None where the log holds no outcome for a draw the rules make; any
    value then serves, as the comparison of the events refuses the log anyway.
    """

    def __init__(
        self,
        index: int,
        values: list | None,
        deck: list | None = None,
        shows: str = "a die shows {!r}",
    ):
        self.index = index
        self.values = None if values is None else list(values)
        self.deck = deck
        self.shows = shows

    def randint(self, a: int, b: int) -> int:
        if self.values is None:
            return a
        if not self.values:
            raise _Refused(self.index, "the rules draw more outcomes than the log records")
        value = self.values.pop(0)
        if not (_is_int(value) and a <= value <= b):
            raise _Refused(self.index, self.shows.format(value))
        return value

    def shuffle(self, x: list) -> None:
        if self.deck is None:
            raise _Refused(self.index, "the rules shuffle where the log records no deck")
        if sorted(self.deck) != sorted(x):
            raise _Refused(self.index, "the deck is not the 48 tavern cards, each once")
        x[:] = self.deck


def _derive(
    events: list[Event], legacy_abort: bool = False
) -> tuple[GameState | None, tuple[int, str] | None]:
    """Fold ``events``, each made again by the engine; stop at the first one that fails.

    Returns the state reached and (index, sentence) of the failing event, or None. A log
    that stops inside the events of one command is only short, not illegal.
    ``legacy_abort``: the game was made under the old abort rule (``engine.can_abort``).
    """
    state: GameState | None = None
    index = 0
    while index < len(events):
        try:
            expected = _rebuild(state, events, index, legacy_abort)
        except _Refused as refused:
            return state, (refused.index, refused.reason)
        except IllegalCommand as error:
            return state, (index, f"{error.code}: {error.message}")
        except ValueError as error:
            return state, (index, str(error))
        for offset, wanted in enumerate(expected):
            if index + offset == len(events):
                return state, None
            recorded = events[index + offset]
            if not _same(recorded, wanted):
                return state, (index + offset, _difference(recorded, wanted))
            state = evolve(state, wanted)
        index += len(expected)
    return state, None


def _rebuild(
    state: GameState | None, events: list[Event], index: int, legacy_abort: bool = False
) -> list[Event]:
    """The events the engine makes for the command, start or ending behind ``events[index]``."""
    event = events[index]
    kind = event["type"]
    if state is None:
        if kind != "game_started":
            raise _Refused(index, "a game's log begins with game_started")
        rng = _LogRng(
            index,
            [event["first_player"]],
            deck=event["deck"],
            shows="first_player is {!r}, not a seat",
        )
        return new_game(rng, extra_wild=event["extra_wild"])[1]
    if state.finished:
        raise _Refused(index, "the game is already over; nothing may follow its end")
    if kind == "game_started":
        raise _Refused(index, "the game has already begun")
    if kind == "round_started":
        raise _Refused(index, "a round is dealt only when the game begins or after a Shanghai")
    seat = event.get("seat")
    rng = None
    if kind == "game_ended":
        reason = event["reason"]
        if reason in SYSTEM_ENDINGS:
            ended = end_game(state, reason, event["winner"])
            if isinstance(event.get("note"), str):  # a moderator's words, not the rules'
                ended[-1] = {**ended[-1], "note": event["note"]}
            return ended
        if reason == "completed":
            raise _Refused(index, "a game is completed only by the last round's Shanghai")
        command: dict = {"type": "resign" if reason == "resignation" else "abort"}
    elif kind == "rolled":
        command = {"type": "roll"}
        rng = _LogRng(index, event["dice"])
    elif kind == "direction_chosen":
        command = {"type": "direction", "one_at": event["one_at"]}
    elif kind == "placed":
        command = {"type": "place", "die": _die_placed(state, seat, event["values"], index)}
    elif kind == "trick_played":
        half = event["half"]
        command = {"type": "trick", "card": event["card"], "half": half}
        command.update({key: event[key] for key in _TRICK_HALVES.get(half, {})})
        if half == "reroll":
            follows = events[index + 1] if index + 1 < len(events) else None
            dice = follows["dice"] if follows and follows["type"] == "rolled" else None
            rng = _LogRng(index + 1, dice)
    else:  # shanghai_called
        command = {"type": "shanghai"}
    return decide(state, seat, command, rng, legacy_abort=legacy_abort)


def _die_placed(state: GameState, seat: Any, values: list[int], index: int) -> int:
    """The index of the rolled die a "placed" event shows (0 if there is none to show)."""
    roll = state.roll
    if roll is None or state.phase != PLACEMENT or state.turn != seat:
        return 0  # the engine refuses the placing itself, with its own reason
    if len(values) == 2:
        raise _Refused(index, "places both dice, which only the trick 'Add both dice' allows")
    if values[0] not in roll:
        raise _Refused(index, f"places a {values[0]}, but the dice show {roll[0]} and {roll[1]}")
    return roll.index(values[0])


def _same(a: Any, b: Any) -> bool:
    """JSON equality that tells true from 1 and 1.0 from 1, as ``==`` does not."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(map(_same, a, b))
    return a == b


def _difference(recorded: Event, wanted: Event) -> str:
    if recorded["type"] != wanted["type"]:
        return f"the rules make a {wanted['type']} event here"
    for key, value in wanted.items():
        if key not in recorded:
            return f"{key!r} is missing; the rules give {value!r}"
        if not _same(recorded[key], value):
            return f"{key} is {recorded[key]!r}; the rules give {value!r}"
    extra = next(key for key in recorded if key not in wanted)
    return f"{extra!r} is not part of this event"


# -- the command line -------------------------------------------------------------------


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m games.rules.records <exported-game.json>", file=sys.stderr)
        return 2
    path = argv[0]
    try:
        with open(path, "rb") as handle:
            record = json.loads(handle.read().decode("utf-8-sig"))
    except OSError as error:
        print(f"cannot read {path}: {error.strerror or error}", file=sys.stderr)
        return 1
    except UnicodeDecodeError:
        print(f"{path} is not UTF-8 text, so not an exported game", file=sys.stderr)
        return 1
    except (ValueError, RecursionError) as error:
        print(f"{path} is not JSON: {error}", file=sys.stderr)
        return 1
    check = check_record(record)
    r = check.replayed
    if r:
        winner = "a draw" if r["winner"] is None else f"seat {r['winner']} wins"
        print(f"replayed: {r['reason']}, {winner}, {r['scores'][0]} : {r['scores'][1]}")
    for problem in check.problems:
        print(f"problem: {problem}")
    print("the record is legal and consistent" if check.ok else "the record does NOT check out")
    if check.ok:
        print(VERIFIED if check.fair else NOT_VERIFIED)
    return 0 if check.ok else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
