from django.db import IntegrityError, transaction
from django.utils.translation import gettext as _

from shanghaien.lib.errors import BadRequest, NotFound
from shanghaien.lib.input import username as clean_username

from . import follows
from .models import Block, User


def _other(username) -> User:
    username = clean_username(username, "username")  # not text: bad_request
    other = User.objects.filter(username__iexact=username).first()
    if other is None:
        message = _("There is no player called %(name)r.") % {"name": username}
        raise NotFound("no_such_user", message)
    return other


def blocks(user, other) -> bool:
    """Whether ``user`` blocks ``other``."""
    return Block.objects.filter(user=user, blocked=other).exists()


def do_block(user, username) -> Block:
    other = _other(username)
    if other.pk == user.pk:
        raise BadRequest("cannot_block_yourself", _("You cannot block yourself."))
    with transaction.atomic():
        # a block overrides following: neither follows the other any more (accounts.follows)
        follows.remove_between(user, other)
        try:
            with transaction.atomic():
                return Block.objects.create(user=user, blocked=other)
        except IntegrityError:
            return Block.objects.get(user=user, blocked=other)


def do_unblock(user, username) -> None:
    Block.objects.filter(user=user, blocked=_other(username)).delete()
