"""System checks of the project's own settings (``manage.py check --deploy`` runs them)."""

from django.conf import settings
from django.core.checks import Error, Tags, register
from django.utils.translation import gettext as _


@register(Tags.security, deploy=True)
def secret_key_is_not_the_development_key(app_configs, **kwargs):
    # The settings module names its development key DEV_SECRET_KEY.
    if getattr(settings, "DEV_SECRET_KEY", None) == settings.SECRET_KEY:
        return [
            Error(
                _("SECRET_KEY is the development key, which anyone can read in settings.py."),
                hint=_("Set DJANGO_SECRET_KEY to a long random value of this site's own."),
                id="shanghaien.E001",
            )
        ]
    return []


@register(deploy=True)
def push_notifications_are_set_up(app_configs, **kwargs):
    """Without a VAPID key the site runs, but no device gets a notification."""
    from django.core.checks import Warning

    from . import webpush

    problems = []
    try:
        available = bool(webpush.keys())
    except Exception as error:  # a key that is not a key
        problems.append(
            Error(
                _("VAPID_PRIVATE_KEY or VAPID_OLD_PRIVATE_KEYS holds something that is not a key."),
                hint=_("Make a new pair with manage.py vapid_keys (%(error)s).")
                % {"error": type(error).__name__},
                id="shanghaien.E002",
            )
        )
        available = True
    if not available:
        problems.append(
            Warning(
                _("VAPID_PRIVATE_KEY is not set: no push notifications are sent."),
                hint=_("Make a key pair with manage.py vapid_keys and set VAPID_PRIVATE_KEY."),
                id="shanghaien.W001",
            )
        )
    return problems
