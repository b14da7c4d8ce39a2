"""The words of kinds declared here but written by an app above games.

A kind in ``kinds.KINDS`` whose ``compose`` names no function of ``mail`` or ``push``
is written by the function an app registered under that name (in its
``AppConfig.ready``): games never imports the app, which reads its own rows from the
notification's ``key``. Each function is called inside the recipient's language and time
zone, like ``mail``'s and ``push``'s own, and returns the same: (subject, body) or a
``shanghaien.lib.webpush.Message``, else the reason not to send.
"""

from __future__ import annotations

from collections.abc import Callable

EMAIL: dict[str, Callable] = {}
PUSH: dict[str, Callable] = {}


def register(compose: str, *, email: Callable | None = None, push: Callable | None = None) -> None:
    """Let ``email(notification)`` and ``push(notification)`` write the kind whose
    ``compose`` is ``compose``."""
    if email is not None:
        EMAIL[compose] = email
    if push is not None:
        PUSH[compose] = push
