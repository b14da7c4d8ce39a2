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
