"""Invitations: invite, accept (the game starts), decline, cancel, and the rematch offer."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from accounts import guest_accounts
from accounts.models import Block, User
from shanghaien.lib.db import locked_or_404
from shanghaien.lib.errors import BadRequest, Conflict, Forbidden, NotFound, RateLimited
from shanghaien.lib.input import clean_text, username

from ..access import access_game
from ..clock import NO_BANK, Bank
from ..live import broadcast
from ..models import DAYS_PER_MOVE_CHOICES, Game, Invitation
from ..notify import queue as notify
from ..rules import fairness
from . import commitments, fitting, limits, starting

DAYS_PER_MOVE = tuple(d for d, _ in DAYS_PER_MOVE_CHOICES)
MESSAGE_MAX = Invitation._meta.get_field("message").max_length

# How many invitations one player may send is counted in ``limits``; open at once:
OPEN_INVITATIONS_MAX = 10  # open at any time, per sender


def check_client_seed(seed) -> str:
    """A player's seed for the dice: 1–64 printable ASCII characters, or "" (none)."""
    if not fairness.valid_client_seed(seed):
        n = fairness.CLIENT_SEED_MAX
        message = ngettext(
            "'client_seed' is at most %(n)d printable ASCII character.",
            "'client_seed' is at most %(n)d printable ASCII characters.",
            n,
        )
        raise BadRequest("bad_client_seed", message % {"n": n})
    return seed


# A time bank's terms, in hours (``games.clock.Bank``): what each player starts with, what
# each move adds, and the most a bank holds (from the start up to BANK_CAP_LONGEST).
BANK_START_HOURS = (24, 48, 72, 120, 168, 336)
BANK_INCREMENT_HOURS = (0, 12, 24, 48)
BANK_CAP_LONGEST = 30 * 24


def check_bank(bank) -> Bank | None:
    """The validated terms of a time bank: None (days per move), a ``Bank``, or a dict
    ``{start_hours, increment_hours, cap_hours}`` of whole numbers of hours."""
    if bank is None or isinstance(bank, Bank):
        terms = bank
    elif isinstance(bank, dict) and set(bank) == {"start_hours", "increment_hours", "cap_hours"}:
        terms = Bank(bank["start_hours"], bank["increment_hours"], bank["cap_hours"])
    else:
        message = _("'bank' is {start_hours, increment_hours, cap_hours}, or null.")
        raise BadRequest("bad_bank", message)
    if terms is None:
        return None
    for name, value, allowed in (
        ("start_hours", terms.start_hours, BANK_START_HOURS),
        ("increment_hours", terms.increment_hours, BANK_INCREMENT_HOURS),
    ):
        if type(value) is not int or value not in allowed:  # not 24.0, not True
            message = _("'bank.%(name)s' is one of %(choices)s.")
            choices = ", ".join(map(str, allowed))
            raise BadRequest("bad_bank", message % {"name": name, "choices": choices})
    cap = terms.cap_hours
    if type(cap) is not int or not terms.start_hours <= cap <= BANK_CAP_LONGEST:
        message = _("'bank.cap_hours' is a whole number of hours from %(low)d to %(high)d.")
        raise BadRequest("bad_bank", message % {"low": terms.start_hours, "high": BANK_CAP_LONGEST})
    return terms


def check_invitation(
    user,
    to: str | None,
    extra_wild,
    days_per_move,
    message,
    rated=True,
    client_seed="",
    min_rating=None,
    max_rating=None,
    max_pace=None,
    bank=None,
) -> dict:
    """The validated fields of a new invitation; an open one may limit who accepts it
    (``fitting``). ``bank``: a time bank's terms instead of days per move
    (``check_bank``)."""
    if to is not None and not isinstance(to, str):
        raise BadRequest("bad_request", _("'to' is a username, or null for an open invitation."))
    to = username(to, "to") if to else None  # None or "": an open invitation
    if not isinstance(extra_wild, bool):
        raise BadRequest("bad_request", _("'extra_wild' is true or false."))
    if type(days_per_move) is not int or days_per_move not in DAYS_PER_MOVE:  # not 3.0, not True
        choices = ", ".join(map(str, DAYS_PER_MOVE))
        raise BadRequest(
            "bad_days_per_move", _("'days_per_move' is one of %(choices)s.") % {"choices": choices}
        )
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
        raise BadRequest("bad_rated", _("'rated' is true (a rated game) or false (a casual one)."))
    check_client_seed(client_seed)
    terms = check_bank(bank)
    starting.refuse_rated_bot_account(rated, user)
    to_user = None
    if to:
        to_user = get_user_model().objects.filter(username__iexact=to).first()
        if to_user is None or not to_user.is_active:
            raise NotFound("no_such_user", _("There is no player called %(name)r.") % {"name": to})
        if to_user.pk == user.pk:
            raise BadRequest("cannot_invite_yourself", _("You cannot invite yourself."))
        if Block.between(user, to_user):
            message = _("%(name)s cannot be invited by you.") % {"name": to_user.username}
            raise Forbidden("blocked", message)
        starting.refuse_rated_bot_account(rated, to_user)
    limits = fitting.check_limits(to or None, min_rating, max_rating, max_pace)
    return {
        "to_user": to_user,
        **limits,
        "extra_wild": extra_wild,
        "days_per_move": days_per_move,
        "message": message,
        "rated": rated,
        "client_seed": client_seed,
        **(terms.fields() if terms else NO_BANK),
    }


def do_invite(
    user,
    to=None,
    extra_wild=False,
    days_per_move=3,
    message="",
    rated=True,
    client_seed="",
    commitment=None,
    min_rating=None,
    max_rating=None,
    max_pace=None,
    bank=None,
) -> Invitation:
    """Invite a player, anyone (``to`` None) or a computer opponent (it accepts at once).

    ``client_seed`` with the ``commitment`` it answers: the player's pending server seed
    (``commitments``), which the invitation takes. An open invitation may limit who
    accepts it: ``min_rating``, ``max_rating``, ``max_pace`` (days per move). ``bank``:
    a time bank instead of days per move (``check_bank``)."""
    fields = check_invitation(
        user,
        to,
        extra_wild,
        days_per_move,
        message,
        rated,
        client_seed,
        min_rating=min_rating,
        max_rating=max_rating,
        max_pace=max_pace,
        bank=bank,
    )
    commitments.check_answer(client_seed, commitment)
    with transaction.atomic():
        if _check_sender(user).is_guest:
            _guest_terms(fields)
        # the commitment first: a stale one is refused without using up a limit
        fair = commitments.take(user, fields.pop("client_seed"), commitment)
        limits.starting(user, fields["to_user"])
        invitation = Invitation.objects.create(from_user=user, **fields, **fair)
        if invitation.to_user is not None and invitation.to_user.is_computer:
            # A computer opponent says yes at once; the worker plays its moves.
            do_accept_invitation(invitation.pk, invitation.to_user)
            invitation.refresh_from_db()
            return invitation
        notify.invited(invitation)
        transaction.on_commit(lambda: broadcast.invitation_changed(invitation, "received"))
    return invitation


def _guest_terms(fields: dict) -> None:
    """A guest (accounts.guest_accounts) invites only a computer opponent, to a casual
    game; each game it starts keeps it for another ``GUEST_LIFETIME``."""
    to_user = fields["to_user"]
    if to_user is None or not to_user.is_computer:
        raise Forbidden("guest", guest_accounts.REFUSALS["invite"])
    fields["rated"] = False


def _check_sender(user) -> User:
    """A player sends invitations only while not suspended, and has a few open at a time.

    Locks the sender's row (inside the caller's transaction), so that two invitations
    at once cannot both take the last place; the row is read afresh, as the user object
    of a socket or a session may be older than a suspension. Returns that row.
    """
    sender = User.objects.select_for_update().get(pk=user.pk)
    if sender.is_suspended:
        raise Forbidden("suspended", _("Your account is suspended."))
    if Invitation.objects.filter(from_user=user, status=Invitation.Status.OPEN).count() >= (
        OPEN_INVITATIONS_MAX
    ):
        message = ngettext(
            "You have %(n)d open invitation: wait for the answer, or cancel it.",
            "You have %(n)d open invitations: wait for answers, or cancel one.",
            OPEN_INVITATIONS_MAX,
        )
        raise RateLimited(message % {"n": OPEN_INVITATIONS_MAX}, retry_after=3600)
    if sender.is_guest:
        guest_accounts.renew(sender)
    return sender


def _open_invitation(invitation_id) -> Invitation:
    """The invitation, locked, if it is still open."""
    invitation = locked_or_404(Invitation, invitation_id, _("No such invitation."))
    if invitation.status != Invitation.Status.OPEN:
        message = _("This invitation is no longer open (%(status)s).") % {
            "status": invitation.get_status_display()
        }
        raise Conflict("invitation_closed", message)
    return invitation


def do_accept_invitation(invitation_id, user, client_seed="", commitment=None) -> Game:
    """Accept: the game starts, its deck and first player drawn from the invitation's
    seed and both players' (``docs/fairness.md``). ``commitment``: the invitation's, as
    shown to the player; required with a seed. An open invitation's limits (a rating
    range, a pace: ``fitting``) are checked here, on every path that accepts."""
    check_client_seed(client_seed)
    commitments.check_answer(client_seed, commitment)
    guest_accounts.refuse_guest(user, "accept")  # a computer's offer is taken by the computer
    with transaction.atomic():
        invitation = _open_invitation(invitation_id)
        commitments.check_answer(client_seed, commitment, expected=invitation.fair_commitment)
        if invitation.from_user_id == user.pk:
            raise Forbidden("own_invitation", _("You cannot accept your own invitation."))
        if invitation.to_user_id not in (None, user.pk):
            raise Forbidden("not_invited", _("This invitation is for someone else."))
        if Block.between(invitation.from_user, user):
            raise Forbidden("blocked", _("You cannot play with this player."))
        fitting.check_fits(invitation, user)  # an open invitation's rating and pace limits
        # a bot account's games: never rated, and no more than its limit under way
        starting.refuse_rated_bot_account(invitation.rated, invitation.from_user, user)
        limits.bot_accounts_accepting([invitation.from_user, user], accepting=user)
        seeds = [invitation.client_seed, client_seed]  # seat 0 is the inviter's
        now = timezone.now()
        game = starting.start_game(
            starting.NewGame(
                players=[invitation.from_user, user],
                extra_wild=invitation.extra_wild,
                days_per_move=invitation.days_per_move,
                bank=Bank.of(invitation),
                rated=invitation.rated,
                fair_seed=invitation.fair_seed,
                fair_commitment=invitation.fair_commitment,
                fair_scheme=invitation.fair_scheme,
                client_seeds=seeds if invitation.fair_seed else [],
                # on the page of live games, unless a guest plays (a visitor's own game)
                listed=not (invitation.from_user.is_guest or user.is_guest),
            ),
            now=now,
        )
        invitation.status = Invitation.Status.ACCEPTED
        invitation.to_user = user
        invitation.game = game
        invitation.answered_at = now
        invitation.save()
        transaction.on_commit(lambda: broadcast.invitation_changed(invitation, "accepted"))
        _tell_old_game(invitation)
    return game


def _tell_old_game(invitation: Invitation) -> None:
    """A rematch offer changed: the finished game's boards show its state."""
    old = invitation.rematch_of
    if old is not None:
        transaction.on_commit(lambda: broadcast.game_changed(old.pk, old.version, force=True))


def _answer(invitation_id, user, status, allowed, refusal) -> Invitation:
    with transaction.atomic():
        invitation = _open_invitation(invitation_id)
        if not allowed(invitation):
            raise refusal
        invitation.status = status
        invitation.answered_at = timezone.now()
        invitation.save()
        transaction.on_commit(lambda: broadcast.invitation_changed(invitation, status.value))
        _tell_old_game(invitation)
    return invitation


def do_decline_invitation(invitation_id, user) -> Invitation:
    return _answer(
        invitation_id,
        user,
        Invitation.Status.DECLINED,
        lambda invitation: invitation.to_user_id == user.pk,
        Forbidden("not_invited", _("Only the invited player can decline.")),
    )


def do_cancel_invitation(invitation_id, user) -> Invitation:
    return _answer(
        invitation_id,
        user,
        Invitation.Status.CANCELLED,
        lambda invitation: invitation.from_user_id == user.pk,
        Forbidden("not_yours", _("Only the player who invited can cancel.")),
    )


def do_rematch(game_id, user, client_seed="", commitment=None) -> Invitation:
    """Offer the opponent a new game with the same options (accepted with one click)."""
    with transaction.atomic():
        seating = access_game(user, game_id, lock=True, must_play=True)
        game = seating.game
        if game.status == Game.Status.ACTIVE:
            raise Conflict("game_not_over", _("A rematch is offered once the game is over."))
        if game.rematches.filter(status=Invitation.Status.OPEN).exists():
            raise Conflict("rematch_offered", _("A rematch is already on offer."))
        check_client_seed(client_seed)
        commitments.check_answer(client_seed, commitment)
        opponent = seating.opponent
        if Block.between(user, opponent):
            raise Forbidden("blocked", _("You cannot play with this player."))
        if _check_sender(user).is_guest and not opponent.is_computer:
            raise Forbidden("guest", guest_accounts.REFUSALS["invite"])
        starting.refuse_rated_bot_account(game.rated, user, opponent)
        fair = commitments.take(user, client_seed, commitment)
        limits.starting(user, opponent)
        invitation = Invitation.objects.create(
            from_user=user,
            to_user=opponent,
            extra_wild=game.extra_wild,
            days_per_move=game.days_per_move,
            **(Bank.of(game).fields() if Bank.of(game) else NO_BANK),
            rated=game.rated,
            message=str(_("Rematch?")),
            rematch_of=game,
            **fair,
        )
        if opponent.is_computer:  # a computer opponent says yes at once, as to an invitation
            do_accept_invitation(invitation.pk, opponent)
            invitation.refresh_from_db()
            return invitation
        transaction.on_commit(lambda: broadcast.invitation_changed(invitation, "received"))
        ids = [p.pk for p in seating.players]
        transaction.on_commit(
            lambda: broadcast.game_changed(game.pk, game.version, force=True, players=ids)
        )
    return invitation
