"""The one write path for games and invitations.

``check_*`` functions validate and raise a typed ``ServiceError``; ``do_*`` functions
perform a complete change inside one transaction, lock the parent row first, and
schedule the broadcast for after the commit. Nothing here trusts its caller.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.db.models import Case, F, Q, Value, When
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from accounts.models import Block, User
from ratings import services as ratings
from shanghaien.lib.input import clean_text, is_client_id, parse_id, username
from shanghaien.lib.ratelimit import Limit

from . import broadcast, rules
from .clock import effective_deadline
from .errors import BadRequest, Conflict, Forbidden, Illegal, NotFound, RateLimited
from .models import (
    CHAT_MAX,
    DAYS_PER_MOVE_CHOICES,
    ChatMessage,
    Command,
    Event,
    Game,
    Invitation,
    Notification,
    Seat,
)

DAYS_PER_MOVE = tuple(d for d, _ in DAYS_PER_MOVE_CHOICES)
MESSAGE_MAX = Invitation._meta.get_field("message").max_length

# What one player may send, so that nobody can flood another's lobby or mailbox.
INVITATIONS_PER_HOUR = Limit("invitations", 20, 3600, _("At most 20 invitations an hour."))
INVITATIONS_TO_ONE_PER_DAY = Limit(
    "invitations-to", 5, 24 * 3600, _("At most 5 invitations a day to the same player.")
)
OPEN_INVITATIONS_MAX = 10  # open at any time, per sender
CHAT_LIMIT = Limit("chat", 5, 10, _("Slow down: at most 5 messages in 10 seconds."))

# Dice and shuffles come from the operating system's randomness, never from a stored seed.
_rng = secrets.SystemRandom()


# -- invitations ------------------------------------------------------------------------


def check_invitation(user, to: str | None, extra_wild, days_per_move, message, rated=True) -> dict:
    """The validated fields of a new invitation."""
    if to is not None and not isinstance(to, str):
        raise BadRequest("bad_request", "'to' is a username, or null for an open invitation.")
    to = username(to, "to") if to else None  # None or "": an open invitation
    if not isinstance(extra_wild, bool):
        raise BadRequest("bad_request", "'extra_wild' is true or false.")
    if type(days_per_move) is not int or days_per_move not in DAYS_PER_MOVE:  # not 3.0, not True
        choices = ", ".join(map(str, DAYS_PER_MOVE))
        raise BadRequest("bad_days_per_move", f"'days_per_move' is one of {choices}.")
    message = clean_text(
        message,
        "message",
        max_length=MESSAGE_MAX,
        required=False,
        multiline=True,
        invalid="bad_message",
        too_long="bad_message",
    )
    if not isinstance(rated, bool):
        raise BadRequest("bad_rated", "'rated' is true (a rated game) or false (a casual one).")
    to_user = None
    if to:
        to_user = get_user_model().objects.filter(username__iexact=to).first()
        if to_user is None or not to_user.is_active:
            raise NotFound("no_such_user", f"There is no player called {to!r}.")
        if to_user.pk == user.pk:
            raise BadRequest("cannot_invite_yourself", "You cannot invite yourself.")
        if Block.between(user, to_user):
            raise Forbidden("blocked", f"{to_user.username} cannot be invited by you.")
    return {
        "to_user": to_user,
        "extra_wild": extra_wild,
        "days_per_move": days_per_move,
        "message": message,
        "rated": rated,
    }


def do_invite(
    user, to=None, extra_wild=False, days_per_move=3, message="", rated=True
) -> Invitation:
    fields = check_invitation(user, to, extra_wild, days_per_move, message, rated)
    with transaction.atomic():
        _check_sender(user)
        INVITATIONS_PER_HOUR.hit(user.pk)
        if fields["to_user"] is not None:
            INVITATIONS_TO_ONE_PER_DAY.hit(f"{user.pk}:{fields['to_user'].pk}")
        invitation = Invitation.objects.create(from_user=user, **fields)
        to_user = invitation.to_user
        if to_user is not None and to_user.email_on_turn and to_user.email:
            queue(to_user, Notification.Kind.INVITATION, str(invitation.pk))
        transaction.on_commit(lambda: broadcast.invitation_changed(invitation, "received"))
    return invitation


def _check_sender(user) -> None:
    """A player sends invitations only while not suspended, and has a few open at a time.

    Locks the sender's row (inside the caller's transaction), so that two invitations
    at once cannot both take the last place; the row is read afresh, as the user object
    of a socket or a session may be older than a suspension.
    """
    if User.objects.select_for_update().get(pk=user.pk).is_suspended:
        raise Forbidden("suspended", _("Your account is suspended."))
    if Invitation.objects.filter(from_user=user, status=Invitation.Status.OPEN).count() >= (
        OPEN_INVITATIONS_MAX
    ):
        message = _("You have %(n)d open invitations: wait for answers, or cancel one.")
        raise RateLimited(message % {"n": OPEN_INVITATIONS_MAX}, retry_after=3600)


def queue(user, kind: str, key: str, game: Game | None = None) -> None:
    """Write an email to the outbox, once per (user, kind, key); the worker sends it."""
    try:
        with transaction.atomic():
            Notification.objects.create(user=user, kind=kind, key=key, game=game)
    except IntegrityError:
        pass  # already queued: at most one


def _locked_invitation(invitation_id) -> Invitation:
    pk = parse_id(invitation_id)
    invitation = Invitation.objects.select_for_update().filter(pk=pk).first() if pk else None
    if invitation is None:
        raise NotFound("not_found", "No such invitation.")
    if invitation.status != Invitation.Status.OPEN:
        raise Conflict("invitation_closed", f"This invitation is already {invitation.status}.")
    return invitation


def do_accept_invitation(invitation_id, user) -> Game:
    """Accept: the game starts with a secret shuffle and a random first player."""
    with transaction.atomic():
        invitation = _locked_invitation(invitation_id)
        if invitation.from_user_id == user.pk:
            raise Forbidden("own_invitation", "You cannot accept your own invitation.")
        if invitation.to_user_id not in (None, user.pk):
            raise Forbidden("not_invited", "This invitation is for someone else.")
        if Block.between(invitation.from_user, user):
            raise Forbidden("blocked", "You cannot play with this player.")
        state, events = rules.new_game(_rng, extra_wild=invitation.extra_wild)
        now = timezone.now()
        game = Game.objects.create(
            extra_wild=invitation.extra_wild,
            days_per_move=invitation.days_per_move,
            rated=invitation.rated,
            state=rules.state_to_json(state),
            last_move_at=now,
        )
        players = [invitation.from_user, user]
        Seat.objects.bulk_create(
            [Seat(game=game, user=player, seat=i) for i, player in enumerate(players)]
        )
        _append_events(game, events, seat=None)
        _copy_state_fields(game, state, players, now)
        game.save()
        invitation.status = Invitation.Status.ACCEPTED
        invitation.to_user = user
        invitation.game = game
        invitation.answered_at = now
        invitation.save()
        transaction.on_commit(lambda: broadcast.invitation_changed(invitation, "accepted"))
        transaction.on_commit(lambda: broadcast.game_changed(game.pk, game.version))
        _tell_old_game(invitation)
    return game


def _tell_old_game(invitation: Invitation) -> None:
    """A rematch offer changed: the finished game's boards show its state."""
    old = invitation.rematch_of
    if old is not None:
        transaction.on_commit(lambda: broadcast.game_changed(old.pk, old.version, force=True))


def do_decline_invitation(invitation_id, user) -> Invitation:
    with transaction.atomic():
        invitation = _locked_invitation(invitation_id)
        if invitation.to_user_id != user.pk:
            raise Forbidden("not_invited", "Only the invited player can decline.")
        invitation.status = Invitation.Status.DECLINED
        invitation.answered_at = timezone.now()
        invitation.save()
        transaction.on_commit(lambda: broadcast.invitation_changed(invitation, "declined"))
        _tell_old_game(invitation)
    return invitation


def do_cancel_invitation(invitation_id, user) -> Invitation:
    with transaction.atomic():
        invitation = _locked_invitation(invitation_id)
        if invitation.from_user_id != user.pk:
            raise Forbidden("not_yours", "Only the player who invited can cancel.")
        invitation.status = Invitation.Status.CANCELLED
        invitation.answered_at = timezone.now()
        invitation.save()
        transaction.on_commit(lambda: broadcast.invitation_changed(invitation, "cancelled"))
        _tell_old_game(invitation)
    return invitation


# -- games ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    game: Game
    seat: int
    version: int  # the game's version right after the command
    duplicate: bool  # a retry of a command already applied: nothing was applied now


def check_command_request(command, expected_version, client_id) -> None:
    if not isinstance(command, dict):
        raise BadRequest("bad_request", "'command' is a JSON object with a 'type'.")
    if isinstance(expected_version, bool) or not isinstance(expected_version, int):
        raise BadRequest("bad_request", "'expected_version' is the version the command is for.")
    if not is_client_id(client_id):
        raise BadRequest(
            "bad_request", "'client_id' is 1–64 letters, digits or - _ . : (a UUID is best)."
        )


def get_game(game_id) -> Game:
    game_pk = parse_id(game_id)
    game = Game.objects.filter(pk=game_pk).first() if game_pk else None
    if game is None:
        raise NotFound("not_found", "No such game.")
    return game


def do_command(game_id, user, command, expected_version, client_id) -> Outcome:
    """Apply one player's command: the only way a game changes."""
    check_command_request(command, expected_version, client_id)
    game_pk = parse_id(game_id)
    with transaction.atomic():
        game = Game.objects.select_for_update().filter(pk=game_pk).first() if game_pk else None
        if game is None:
            raise NotFound("not_found", "No such game.")
        seats = list(game.seats.select_related("user").order_by("seat"))
        mine = next((s for s in seats if s.user_id == user.pk), None)
        if mine is None:
            raise Forbidden("not_a_player", "Only the two players of this game can play it.")
        seat = mine.seat
        if mine.user.is_suspended:  # read now: an open socket's user was loaded at connect
            raise Forbidden("suspended", "Your account is suspended.")
        applied = Command.objects.filter(game=game, client_id=client_id).first()
        if applied is not None:
            if applied.seat != seat or applied.command != command:
                raise Conflict("client_id_reused", "This client_id was used for another command.")
            return Outcome(game, seat, applied.version, duplicate=True)
        if expected_version != game.version:
            raise Conflict(
                "stale_version",
                f"The game is at version {game.version}, not {expected_version}: resync.",
            )
        state = game.rules_state()
        try:
            events = rules.decide(state, seat, command, _rng)
        except rules.IllegalCommand as error:
            raise Illegal(error.code, error.message) from None
        for event in events:
            state = rules.evolve(state, event)
        now = timezone.now()
        _append_events(game, events, seat=seat)
        _copy_state_fields(game, state, [s.user for s in seats], now)
        game.last_move_at = now
        game.save()
        Command.objects.create(
            game=game, seat=seat, client_id=client_id, command=command, version=game.version
        )
        version = game.version
        transaction.on_commit(lambda: broadcast.game_changed(game.pk, version))
    return Outcome(game, seat, version, duplicate=False)


def _append_events(game: Game, events: list[dict], seat: int | None) -> None:
    rows = []
    for event in events:
        game.version += 1
        payload = {k: v for k, v in event.items() if k != "type"}
        rows.append(
            Event(game=game, seq=game.version, kind=event["type"], payload=payload, seat=seat)
        )
    Event.objects.bulk_create(rows)


def _copy_state_fields(game: Game, state: rules.GameState, players: list, now) -> None:
    """Keep the snapshot and its queryable copies (turn, clock, result) in step with the state."""
    previous = game.to_move_id
    game.state = rules.state_to_json(state)
    game.round = max(state.round, 1)
    game.to_move = players[state.turn] if state.turn is not None else None
    if game.to_move_id != previous:  # a new turn: a new clock
        game.turn_number += 1
        game.turn_started_at = now
        game.extended = False
        game.deadline = now + timedelta(days=game.days_per_move) if game.to_move else None
        mover = game.to_move
        if mover is not None and mover.email_on_turn and not mover.daily_digest and mover.email:
            queue(mover, Notification.Kind.TURN, f"{game.pk}:{game.turn_number}", game)
    result = state.result
    if result is not None:
        arrived = game.status == Game.Status.ACTIVE  # the result arrives now
        game.status = {
            "aborted": Game.Status.ABORTED,
            "annulled": Game.Status.ANNULLED,
        }.get(result.reason, Game.Status.FINISHED)
        game.winner = players[result.winner] if result.winner is not None else None
        game.result_reason = result.reason
        game.score0, game.score1 = (s.total for s in result.scores)
        game.finished_at = now
        game.deadline = None
        if arrived and game.rated and game.status == Game.Status.FINISHED:
            ratings.apply_result(game, players)  # aborted and annulled games are not rated


def replay_events(game: Game) -> rules.GameState:
    """The state folded from the stored log (the snapshot must equal it)."""
    return rules.replay(e.as_rules_event() for e in game.events.order_by("seq"))


# -- the clock --------------------------------------------------------------------------


def locked_game(game_id) -> Game:
    game_pk = parse_id(game_id)
    game = Game.objects.select_for_update().filter(pk=game_pk).first() if game_pk else None
    if game is None:
        raise NotFound("not_found", "No such game.")
    return game


def _players(game: Game) -> list:
    return [s.user for s in game.seats.select_related("user").order_by("seat")]


def do_timeout(game_id, now=None) -> bool:
    """End the game if its player to move has run out of time. True if it did."""
    now = now or timezone.now()
    with transaction.atomic():
        game = locked_game(game_id)
        if game.status != Game.Status.ACTIVE:
            return False
        deadline = effective_deadline(game)
        if deadline is None or deadline > now:
            return False
        late = game.rules_state().turn
        players = end_by_server(game, "timeout", winner=1 - late, now=now)
        for player in players:
            if player.email:
                queue(player, Notification.Kind.TIMEOUT, str(game.pk), game)
    return True


def end_by_server(game: Game, reason: str, winner: int | None, now=None) -> list:
    """End a locked, active game for a reason of the server's (``rules.SYSTEM_ENDINGS``).

    Call inside ``transaction.atomic()`` with the game row locked. Returns the players.
    """
    state = game.rules_state()
    players = _players(game)
    events = rules.end_game(state, reason, winner)
    for event in events:
        state = rules.evolve(state, event)
    _append_events(game, events, seat=None)
    _copy_state_fields(game, state, players, now or timezone.now())
    game.save()
    version = game.version
    transaction.on_commit(lambda: broadcast.game_changed(game.pk, version))
    return players


def do_extend(game_id, user, now=None) -> Game:
    """The player who waits grants the one to move one extra day, once per turn."""
    with transaction.atomic():
        game = locked_game(game_id)
        if game.seat_of(user) is None:
            raise Forbidden("not_a_player", "Only the players of this game can do that.")
        if game.status != Game.Status.ACTIVE:
            raise Conflict("game_over", "The game has ended.")
        if game.to_move_id == user.pk:
            raise Forbidden("own_turn", "Only your opponent can give you an extra day.")
        if game.extended:
            raise Conflict("already_extended", "An extra day was already given for this turn.")
        game.deadline += timedelta(days=1)
        game.extended = True
        game.save(update_fields=["deadline", "extended"])
        transaction.on_commit(lambda: broadcast.game_changed(game.pk, game.version, force=True))
    return game


def do_rematch(game_id, user) -> Invitation:
    """Offer the opponent a new game with the same options (accepted with one click)."""
    with transaction.atomic():
        game = locked_game(game_id)
        seat = game.seat_of(user)
        if seat is None:
            raise Forbidden("not_a_player", "Only the players of this game can ask for a rematch.")
        if game.status == Game.Status.ACTIVE:
            raise Conflict("game_not_over", "A rematch is offered once the game is over.")
        if game.rematches.filter(status=Invitation.Status.OPEN).exists():
            raise Conflict("rematch_offered", "A rematch is already on offer.")
        opponent = _players(game)[1 - seat]
        if Block.between(user, opponent):
            raise Forbidden("blocked", _("You cannot play with this player."))
        _check_sender(user)
        invitation = Invitation.objects.create(
            from_user=user,
            to_user=opponent,
            extra_wild=game.extra_wild,
            days_per_move=game.days_per_move,
            rated=game.rated,
            message="Rematch?",
            rematch_of=game,
        )
        transaction.on_commit(lambda: broadcast.invitation_changed(invitation, "received"))
        transaction.on_commit(lambda: broadcast.game_changed(game.pk, game.version, force=True))
    return invitation


# An open game socket renews its seat's lease every minute (consumers.HEARTBEAT_SECONDS);
# one not heard from for longer belonged to a server that stopped without closing it.
SOCKET_LEASE = timedelta(minutes=3)


def _lease_lapsed(now):
    return Q(socket_seen_at__isnull=True) | Q(socket_seen_at__lt=now - SOCKET_LEASE)


def socket_opened(game_id, user, now=None) -> None:
    """Count one more open socket; a count whose lease lapsed was left by a dead server
    and starts again from this socket."""
    now = now or timezone.now()
    Seat.objects.filter(game_id=game_id, user=user).update(
        open_sockets=Case(When(_lease_lapsed(now), then=Value(1)), default=F("open_sockets") + 1),
        socket_seen_at=now,
    )


def socket_alive(game_id, user, now=None) -> None:
    """An open socket renews its lease."""
    Seat.objects.filter(game_id=game_id, user=user, open_sockets__gt=0).update(
        socket_seen_at=now or timezone.now()
    )


def socket_closed(game_id, user) -> None:
    Seat.objects.filter(game_id=game_id, user=user, open_sockets__gt=0).update(
        open_sockets=F("open_sockets") - 1
    )


def has_game_open(game, user, now=None) -> bool:
    """Whether the player has this game open in a browser right now."""
    now = now or timezone.now()
    return (
        Seat.objects.filter(game=game, user=user, open_sockets__gt=0)
        .exclude(_lease_lapsed(now))
        .exists()
    )


# -- chat -------------------------------------------------------------------------------


def do_chat(game_id, user, text) -> ChatMessage:
    """A line of chat between the two players; stored as typed, escaped when shown."""
    text = clean_text(text, "text", max_length=CHAT_MAX, multiline=True, invalid="bad_message")
    game = get_game(game_id)
    players = _players(game)
    me = next((p for p in players if p.pk == user.pk), None)
    if me is None:
        raise Forbidden("not_a_player", "Only the players of this game can chat in it.")
    if me.is_suspended:  # read now: an open socket's user was loaded at connect
        raise Forbidden("suspended", "Your account is suspended.")
    if Block.between(players[0], players[1]):
        raise Forbidden("blocked", "Chat is closed between these players.")
    CHAT_LIMIT.hit(f"{game.pk}:{user.pk}")
    message = ChatMessage.objects.create(game=game, user=user, text=text)
    transaction.on_commit(lambda: broadcast.chat(game.pk, message.pk))
    return message
