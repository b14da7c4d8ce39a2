"""The messages of a game, declared once: the commands a player sends, by HTTP or socket.

Each command type is a pydantic model built from the rules' own tables
(``games.rules.shapes``: the keys each type takes, the values each key may hold), so the
OpenAPI schema of the HTTP API, the socket frames and the engine's ``parse_command`` say
the same thing. Unknown fields are refused (``extra="forbid"``), and values are strict:
``true`` is not the die 1, ``"1"`` is not the delta 1.

The engine still checks every command it is given (``parse_command``): these models are
what the site's edges validate and publish, the engine is what decides.
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any, Literal, Union

from django.utils.translation import gettext
from pydantic import (
    BeforeValidator,
    Field,
    ValidationError,
    WrapValidator,
    create_model,
)

from shanghaien.lib.errors import BadRequest, Illegal
from shanghaien.lib.input import CLIENT_ID_PATTERN
from shanghaien.lib.schemas import Body, Message

from .rules.cards import NATIONS
from .rules.fairness import CLIENT_SEED_MAX
from .rules.illegal import IllegalCommand
from .rules.shapes import SIMPLE_KEYS, TRICK_HALF_KEYS, VALUES, parse_command


def _same_type(allowed: tuple):
    kinds = {type(value) for value in allowed}

    def check(value):
        # JSON's true and 1.0 equal 1 to Python: a literal of numbers would take them.
        if type(value) not in kinds:
            raise ValueError(f"one of {', '.join(map(repr, allowed))} is expected")
        return value

    return BeforeValidator(check)


def _field(key: str):
    allowed = VALUES[key]
    return (Annotated[Literal[allowed], _same_type(allowed)], ...)  # type: ignore[valid-type]


def _model(name: str, doc: str, **fields):
    return create_model(name, __base__=Message, __doc__=doc, **fields)


def _title(words: str) -> str:
    return "".join(part.capitalize() for part in words.split("_"))


_SIMPLE = [
    _model(
        f"{_title(kind)}Command",
        f"The command {kind!r}.",
        type=(Literal[kind], ...),
        **{key: _field(key) for key in keys},
    )
    for kind, keys in SIMPLE_KEYS.items()
]
_TRICKS = [
    _model(
        f"Trick{_title(half)}Command",
        f"Playing a trick card's {half!r} half.",
        type=(Literal["trick"], ...),
        card=(str, ...),
        half=(Literal[half], ...),
        **{key: _field(key) for key in keys},
    )
    for half, keys in TRICK_HALF_KEYS.items()
]

TrickCommand = Annotated[Union[tuple(_TRICKS)], Field(discriminator="half")]  # noqa: UP007
Command = Annotated[Union[(*_SIMPLE, TrickCommand)], Field(discriminator="type")]  # noqa: UP007
"""Any command a player may send: ``{"type": "roll"}``, ``{"type": "trick", "card":
"t3", "half": "adjust", "die": 0, "delta": 1}``…"""


# -- the HTTP API's bodies ------------------------------------------------------------------
# (the base ``Body`` turns a refusal into the API's error envelope: shanghaien.lib.schemas)

DaysPerMove = Annotated[Literal[1, 2, 3, 5, 7, 14], _same_type((1, 2, 3, 5, 7, 14))]
Side = Literal["me", "opponent"]
# The mark beside a program's name: a computer opponent's level, or "bot" for a bot
# account (accounts.models.User.program_mark).
BotLevel = Literal["deckhand", "boatswain", "captain", "admiral", "bot"]
Nation = Literal[NATIONS]  # type: ignore[valid-type]


def _engine_says(value, handler):
    """A command the declaration refuses is refused as the engine refuses it: the code
    ``bad_command`` and the engine's own words (the socket sends the same)."""
    if not isinstance(value, dict):
        raise BadRequest("bad_request", gettext("'command' is a JSON object with a 'type'."))
    try:
        return handler(value)
    except ValidationError:
        try:
            parse_command(value)
        except IllegalCommand as error:
            raise Illegal(error.code, error.message) from None
        raise  # the two disagree (a test holds them together): the generic refusal


# An open invitation's limits on who may accept it (games.services.fitting).
MIN_RATING = (
    "An open invitation only: the lowest rating (whole points, 100–3000) of a player who "
    "may accept it; a player with no rated game counts as 1500. Null: no limit."
)
MAX_RATING = "An open invitation only: the highest rating (100–3000) who may accept it."
MAX_PACE = (
    "An open invitation only: the most days per move (1–14) a player who accepts may take "
    "on average over their last finished games; a player with none yet may accept."
)


class Seeds(Body):
    """The player's seed for the dice and the server's commitment it answers
    (``docs/fairness.md``): both may be left out."""

    codes = {"client_seed": "bad_client_seed", "commitment": "bad_commitment"}

    client_seed: str = Field("", max_length=CLIENT_SEED_MAX)
    commitment: str | None = Field(None, examples=["0" * 64])


BankStart = Annotated[Literal[24, 48, 72, 120, 168, 336], _same_type((24, 48, 72, 120, 168, 336))]
BankIncrement = Annotated[Literal[0, 12, 24, 48], _same_type((0, 12, 24, 48))]


class BankTerms(Message):
    """A time bank instead of days per move (``docs/architecture.md``, the clock): each
    player starts with ``start_hours``, each of their moves adds ``increment_hours``,
    and a bank holds at most ``cap_hours`` (from ``start_hours`` to 720)."""

    start_hours: BankStart = Field(examples=[72])
    increment_hours: BankIncrement = Field(examples=[24])
    cap_hours: int = Field(ge=24, le=720, examples=[168])


class InvitationBody(Seeds):
    """A new invitation: to a player by name, or open to anyone (``to`` null or left out)."""

    codes = {
        **Seeds.codes,
        "days_per_move": "bad_days_per_move",
        "message": "bad_message",
        "rated": "bad_rated",
        "min_rating": "bad_limits",
        "max_rating": "bad_limits",
        "max_pace": "bad_limits",
        "bank": "bad_bank",
    }

    to: str | None = None
    extra_wild: bool = False
    days_per_move: DaysPerMove = 3
    message: str = ""
    rated: bool = True
    min_rating: int | None = Field(None, description=MIN_RATING, examples=[1400])
    max_rating: int | None = Field(None, description=MAX_RATING, examples=[1600])
    max_pace: int | None = Field(None, description=MAX_PACE, examples=[2])
    bank: BankTerms | None = Field(
        None, description="a time bank instead of days per move; null: days per move"
    )


class MoveBody(Body):
    """A command for the version of the game it was chosen at, once per ``client_id``."""

    command: Annotated[Command, WrapValidator(_engine_says)]
    expected_version: int
    client_id: str = Field(pattern=rf"^{CLIENT_ID_PATTERN}$", examples=["3f0c…"])


class ChatBody(Body):
    """A line of chat to the other player."""

    codes = {"text": "bad_message"}

    text: str


class NoteBody(Body):
    """The player's private note on a game, as it is to be kept (empty: deleted)."""

    codes = {"text": "bad_text"}

    text: str


# -- the HTTP API's answers -----------------------------------------------------------------
# Built by games.serializers and games.history as plain JSON (the hot paths are not
# validated as they go out); the test suite holds them to these declarations.


class Invitation(Message):
    id: int
    from_: str = Field(alias="from")
    to: str | None
    extra_wild: bool
    days_per_move: int
    rated: bool
    message: str
    min_rating: int | None = Field(description=MIN_RATING)
    max_rating: int | None = Field(description=MAX_RATING)
    max_pace: int | None = Field(description=MAX_PACE)
    bank: BankTerms | None = Field(description="a time bank; null: days per move")
    commitment: str | None
    client_seed: str
    status: Literal["open", "accepted", "declined", "cancelled"]
    game: int | None
    rematch_of: int | None
    created_at: dt.datetime


class NotForYou(Invitation):
    """An open invitation whose limits the player misses, and which one."""

    reason: str = Field(examples=["Only players rated 1400–1600 may accept; your rating is 1320."])


class Invitations(Message):
    received: list[Invitation]
    sent: list[Invitation]
    open: list[Invitation] = Field(description="open invitations the player may accept")
    not_for_you: list[NotForYou] = Field(
        description="the other open invitations, each with the limit the player misses"
    )
    commitment: str


class Accepted(Message):
    game: int


class CommitmentShown(Message):
    commitment: str
    scheme: str
    made_at: dt.datetime


class Scores(Message):
    me: int
    opponent: int


class SummaryResult(Message):
    winner: Side | None
    reason: str
    me: int
    opponent: int


class Away(Message):
    start: dt.date
    end: dt.date


class GameSummary(Message):
    id: int
    version: int
    status: Literal["active", "finished", "aborted", "annulled"]
    opponent: str
    opponent_bot: BotLevel | None
    your_turn: bool
    round: int
    extra_wild: bool
    days_per_move: int
    bank: BankTerms | None = Field(description="a time bank; null: days per move")
    rated: bool
    result: SummaryResult | None
    outcome: str | None
    last_move_at: dt.datetime | None
    deadline: dt.datetime | None
    opponent_away: list[Away]


class PlayersQuery(Message):
    """The query of ``GET /api/players/``: the start of a name, and the page."""

    q: str = Field("", description="the start of a name, any case")
    after: str | None = Field(None, description="the cursor of the next page")


class GamesQuery(Message):
    """The query of ``GET /api/games/``: which list, the page, and the filters (each left
    out: any game)."""

    model_config = {"extra": "ignore", "strict": False}

    status: str = Field("active", description="'active' or 'finished'")
    after: str | None = Field(None, description="the cursor of an active list's next page")
    before: str | None = Field(None, description="the cursor of a finished list's next page")
    opponent: str | None = Field(
        None,
        max_length=150,
        description="only the games against this player (the name, in any case); "
        "an unknown name: no game",
    )
    variant: Literal["standard", "extra_wild"] | None = Field(
        None, description="only the games without ('standard') or with the extra wild card"
    )
    rated: Literal["rated", "casual"] | None = Field(
        None, description="only the rated games, or only the casual ones"
    )
    result: Literal["won", "lost", "drawn"] | None = Field(
        None, description="only the games over with this result (none under way has one)"
    )


class GamesPage(Message):
    games: list[GameSummary]
    next: str | None  # the address of the next page, null on the last


class ChatLine(Message):
    id: int
    by: Side
    text: str
    at: dt.datetime


class Chat(Message):
    chat: list[ChatLine]


class Note(Message):
    """The player's own note on a game: only its author ever gets it."""

    text: str  # "" when there is none
    updated_at: dt.datetime | None


# The board from one side (games.rules.view.player_view): what docs/protocol.md shows.


class SailorCard(Message):
    id: str
    kind: Literal["sailor"]
    nation: Nation
    value: Literal[1, 2, 3, 4]


class TrickCard(Message):
    id: str
    kind: Literal["trick"]
    action: Literal["adjust", "both", "reroll"]


Card = Annotated[Union[SailorCard, TrickCard], Field(discriminator="kind")]  # noqa: UP007
Die = Annotated[int, Field(ge=1, le=6)]


class Sailor(Message):
    id: str
    value: Literal[1, 2, 3, 4]
    wild: bool


class HeldTrick(Message):
    id: str
    action: Literal["adjust", "both", "reroll"]
    extra: bool  # the variant's extra card, held from the start
    usable: bool  # this round (on the owner's turn, with a roll to place)
    block: Literal["won_in_last_round", "game_over", "won_this_round", "trick_used"] | None


class PlayerSide(Message):
    supply: int = Field(ge=0, le=6)
    placed_this_round: int = Field(ge=0, le=6)
    sailors: dict[Nation, list[Sailor]]
    strength: dict[Nation, Annotated[int, Field(ge=0)]]
    tricks: list[HeldTrick]
    trick_used_this_round: bool


class Roll(Message):
    dice: list[Die] = Field(min_length=2, max_length=2)
    by: Side


class TavernPlace(Message):
    card: Card | None
    number: Literal[1, 2, 3, 4, 5, 6] | None
    my_dice: list[Die]
    opponent_dice: list[Die]


class SharedCard(Message):
    card: Card
    number: Literal[1, 2, 3, 4, 5, 6]
    my_dice: list[Die]
    opponent_dice: list[Die]
    my_neighbours: int | None
    opponent_neighbours: int | None
    to: Side | None
    reason: Literal["unclaimed", "alone", "majority", "neighbours", "tie"]


class LastRound(Message):
    round: int = Field(ge=1, le=8)
    called_by: Side
    direction: Literal["left", "right"]
    cards: list[SharedCard] = Field(min_length=6, max_length=6)


class Remaining(Message):
    nation: Nation | None = None
    me: int = Field(ge=0)
    opponent: int = Field(ge=0)
    remaining_cards: int = Field(ge=0)
    remaining_points: int = Field(ge=0)


class ScoreTable(Message):
    nations: list[Remaining] = Field(min_length=8, max_length=8)
    tricks: Remaining
    still_to_come: list[Card]


class Score(Message):
    total: int = Field(ge=0)
    by_nation: dict[Nation, Annotated[int, Field(ge=0)]]
    tricks: int = Field(ge=0)


class Projected(Message):
    me: Score
    opponent: Score


class CrewOutcome(Message):
    outcome: Literal["nobody", "uncontested", "tie", "contested"]
    winner: Side | None  # the side that scores the nation


class ViewResult(Message):
    winner: Side | None
    reason: str
    played: bool  # a card won and a point counted: else the sentence alone tells the end
    nations: dict[Nation, CrewOutcome]
    me: Score
    opponent: Score


class PlayerView(Message):
    """The board from one side: no deck order, the other side's hand as counts."""

    status: Literal["active", "finished"]
    round: int = Field(ge=0, le=8)  # 0 only in a replay's first step, before the deal
    rounds: Literal[8]
    deck_count: int = Field(ge=0)  # all of them in a replay's first step
    phase: Literal["turn", "direction", "placement", "finished"]
    turn: Side | None
    start_player: Side
    direction: Literal["left", "right"] | None
    roll: Roll | None
    tavern: list[TavernPlace] = Field(min_length=6, max_length=6)
    me: PlayerSide
    opponent: PlayerSide
    legal: list[Command]
    must_shanghai: Literal["no_dice", "one_die"] | None  # fewer than 2 dice: no roll
    last_round: LastRound | None
    round_end: bool  # the last round's sharing out is still the news (until a roll)
    score_table: ScoreTable
    projected: Projected
    result: ViewResult | None
    extra_wild: bool


class RatingChange(Message):
    before: int
    after: int
    change: int


class Ratings(Message):
    me: RatingChange
    opponent: RatingChange


class Names(Message):
    me: str
    opponent: str


class Bots(Message):
    me: BotLevel | None
    opponent: BotLevel | None


class Told(Message):
    by: Side
    text: str


class SinceLine(Message):
    by: Literal["opponent"] | None = None
    text: str


class Since(Message):
    lines: list[SinceLine]
    placed: list[Die]
    round_end: bool


class AwaySides(Message):
    me: list[Away] = []
    opponent: list[Away] = []


class Banks(Message):
    """Each player's bank in seconds as their last turn ended; the mover's is what their
    turn began with (its deadline counts it down)."""

    me: int
    opponent: int


class Clock(Message):
    kind: Literal["days", "bank"] = Field(
        description="'days': days per move; 'bank': a time bank (``bank``, ``banks``)"
    )
    deadline: dt.datetime | None
    bank: BankTerms | None
    banks: Banks | None
    extended: bool
    can_extend: bool
    away: AwaySides


class Rematch(Message):
    invitation: int
    by: Side
    status: Literal["open", "accepted", "declined", "cancelled"]
    game: int | None
    commitment: str | None


class Fairness(Message):
    scheme: str
    commitment: str
    client_seeds: list[str] = Field(min_length=2, max_length=2)
    server_seed: str | None = None  # once the game is over


class GameView(Message):
    """A game as one player (or a watcher) sees it: ``GET /api/games/<id>/`` and the
    socket's ``state`` frame (``docs/protocol.md``)."""

    id: int
    version: int
    status: Literal["active", "finished", "aborted", "annulled"]
    extra_wild: bool
    days_per_move: int
    rated: bool
    ratings: Ratings | None
    watching: bool
    players: Names
    bots: Bots
    guest: bool
    outcome: str | None
    created_at: dt.datetime
    last_move_at: dt.datetime | None
    recent: list[Told]
    since: Since | None
    clock: Clock
    rematch: Rematch | None
    chat: list[ChatLine]
    fairness: Fairness | None
    view: PlayerView


class Applied(Message):
    version: int
    duplicate: bool  # a retry of a command applied before: nothing was applied now


class MoveAnswer(GameView):
    """The game right after the command, and what the command did."""

    applied: Applied


class ReplayRound(Message):
    round: int
    step: int


class ReplayStep(Message):
    seq: int
    kind: str
    by: Side | None
    text: str
    at: dt.datetime
    view: PlayerView


class Replay(Message):
    """Every step of a game as its viewer may see it (``?as=<name>``: from that side)."""

    id: int
    status: Literal["active", "finished", "aborted", "annulled"]
    extra_wild: bool
    players: Names
    outcome: str | None
    seats: list[str] = Field(min_length=2, max_length=2)
    version: int
    rounds: list[ReplayRound]
    steps: list[ReplayStep]


class ExportResult(Message):
    status: str
    reason: str
    winner: int | None
    scores: list[int | None]


class ExportedEvent(Message):
    seq: int
    at: dt.datetime
    event: dict[str, Any]  # the engine's event as stored (docs/architecture.md)


class Export(Message):
    """The whole log of a game that is over, deck order included (``docs/api.md``)."""

    format: str
    format_version: int
    id: int
    extra_wild: bool
    rated: bool
    days_per_move: int
    bank: BankTerms | None = Field(None, description="a time bank; null: days per move")
    players: list[str]
    created_at: dt.datetime
    finished_at: dt.datetime | None
    result: ExportResult
    events: list[ExportedEvent]
    fairness: Fairness | None = None
    note: Note | None = None  # the asking player's own note on the game, if they wrote one


class PlayerFound(Message):
    """A player the search found: ``bot`` is a computer opponent's level, or "bot" for a
    bot account (null for a person), ``rating`` null before a rated game, ``games`` the
    finished games played."""

    username: str
    bot: BotLevel | None
    rating: int | None
    games: int


class PlayersFound(Message):
    players: list[PlayerFound]
    next: str | None  # the address of the next page, null on the last


# -- the streams (games.live.streams) -------------------------------------------------------


class GameStreamQuery(Message):
    """The query of ``GET /api/games/<id>/stream/``: the version the client has."""

    model_config = {"extra": "ignore", "strict": False}

    since: int | None = Field(
        None,
        ge=0,
        le=2**31 - 1,
        description="the version the client has already: the current state is sent only "
        "if it is newer, then every newer version once",
    )


class AccountStreamLine(Message):
    """One line of ``GET /api/stream/`` (``application/x-ndjson``; an empty line is a
    keep-alive). ``invitation``: ``event`` and the ``invitation`` as ``GET
    /api/invitations/`` lists it; ``game_start``: the game, its version, the opponent and
    whether it is the account's turn; ``your_turn``: the game and its version;
    ``game_end``: the game's status, ``result`` and ``outcome`` from the account's side;
    ``error``: the stream's last line (``token_revoked``, ``token_expired``)."""

    model_config = {"extra": "allow"}

    type: Literal["invitation", "game_start", "your_turn", "game_end", "error"]
    game: int | None = None
    version: int | None = None
    event: str | None = None
    invitation: dict[str, Any] | None = None
    opponent: str | None = None
    opponent_bot: str | None = None
    your_turn: bool | None = None
    status: str | None = None
    result: dict[str, Any] | None = None
    outcome: Any = None
    code: str | None = None
    message: str | None = None


class GameStreamLine(Message):
    """One line of ``GET /api/games/<id>/stream/`` (``application/x-ndjson``; an empty
    line is a keep-alive): the game socket's frames, ``state`` (``version`` and ``game``
    as ``GET /api/games/<id>/`` answers it, from the viewer's side), ``chat`` and
    ``chat_hidden``; ``error`` is the stream's last line (``token_revoked``,
    ``token_expired``)."""

    model_config = {"extra": "allow"}

    type: Literal["state", "chat", "chat_hidden", "error"]
    version: int | None = None
    game: dict[str, Any] | None = None
    message: Any = None
    id: int | None = None
    code: str | None = None


def stream_response(line: type[Message]) -> dict:
    """The OpenAPI of a stream's 200 answer: NDJSON, each line a ``line``."""
    return {
        "responses": {
            200: {
                "description": "NDJSON, one object a line: " + line.__name__,
                "content": {"application/x-ndjson": {"schema": line.model_json_schema()}},
            }
        }
    }
