"""The server commits first: each player's next server seed exists, and its commitment
is shown to them, before they send a seed of their own (``docs/fairness.md``).

Every path that starts a game from a player's seed — an invitation, a game against the
computer, a rematch — takes the seed with ``take``; accepting an invitation uses the
invitation's seed, whose commitment the invitation shows. A player's seed counts only
with the commitment it answers: ``take`` refuses a seed sent without one, and a
commitment that is no longer the player's (used by another invitation meanwhile).
"""

from __future__ import annotations

import re
import secrets

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from shanghaien.lib.errors import BadRequest, Conflict

from ..models import PendingSeed
from ..rules import fairness

HEX_64 = re.compile(r"[0-9a-fA-F]{64}")


class CommitmentChanged(Conflict):
    """The commitment sent is not the player's current one; the answer carries it."""

    def __init__(self, current: str | None):
        super().__init__(
            "commitment_changed",
            _(
                "The server's commitment you answered has been used or replaced. Check the "
                "new one and send your seed again."
            ),
        )
        self.current = current

    def to_json(self) -> dict:
        data = super().to_json()
        if self.current is not None:
            data["error"]["commitment"] = self.current
        return data


def new_server_seed() -> str:
    """A secret seed for a game, 32 bytes from the operating system, in hex."""
    return secrets.token_bytes(fairness.SEED_BYTES).hex()


def _renew(pending: PendingSeed) -> PendingSeed:
    """A new secret seed, its commitment and the moment, on ``pending`` (not saved)."""
    pending.seed = new_server_seed()
    pending.commitment = fairness.commitment(bytes.fromhex(pending.seed))
    pending.made_at = timezone.now()
    return pending


def shown(user) -> PendingSeed:
    """The player's next server seed, made now if they have none: call it to show its
    commitment (it is saved before the page or answer that shows it is sent)."""
    pending = PendingSeed.objects.filter(user=user).first()
    if pending is None:
        with transaction.atomic():
            PendingSeed.objects.bulk_create([_renew(PendingSeed(user=user))], ignore_conflicts=True)
        pending = PendingSeed.objects.get(user=user)
    return pending


def check_answer(client_seed: str, commitment, expected: str | None = None) -> str | None:
    """A commitment sent with a seed: None, or 64 hex digits; required with a seed."""
    if commitment is None or commitment == "":
        if client_seed:
            message = _(
                "A seed for the dice counts only with the server's commitment it answers: "
                "send 'commitment' as it was shown to you."
            )
            raise BadRequest("commitment_required", message)
        return None
    if not isinstance(commitment, str) or not HEX_64.fullmatch(commitment):
        raise BadRequest("bad_commitment", _("'commitment' is 64 hexadecimal digits."))
    if expected is not None and commitment.lower() != expected:
        raise CommitmentChanged(expected)
    return commitment.lower()


def take(user, client_seed: str, commitment) -> dict:
    """The fair fields of a new invitation from ``user``: their pending seed (locked and
    replaced by a new one in the caller's transaction) and their own seed.

    ``commitment``: what the player was shown; refused unless it is still theirs."""
    answered = check_answer(client_seed, commitment)
    pending = PendingSeed.objects.select_for_update().filter(user=user).first()
    if pending is None:
        if answered is not None:  # nothing of theirs was ever shown: not this one
            raise CommitmentChanged(None)
        pending = _renew(PendingSeed(user=user))  # no seed of theirs to answer
        pending.save(force_insert=True)
    if answered is not None and answered != pending.commitment:
        raise CommitmentChanged(pending.commitment)
    fields = {
        "fair_seed": pending.seed,
        "fair_commitment": pending.commitment,
        "fair_scheme": fairness.SCHEME,
        "client_seed": client_seed,
    }
    _renew(pending).save(update_fields=["seed", "commitment", "made_at"])
    return fields
