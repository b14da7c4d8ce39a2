"""System checks of the project's own settings (``manage.py check --deploy`` runs them)."""

from django.conf import settings
from django.core.checks import Error, Tags, register


@register(Tags.security, deploy=True)
def secret_key_is_not_the_development_key(app_configs, **kwargs):
    # The settings module names its development key DEV_SECRET_KEY.
    if settings.SECRET_KEY == getattr(settings, "DEV_SECRET_KEY", None):
        return [
            Error(
                "SECRET_KEY is the development key, which anyone can read in settings.py.",
                hint="Set DJANGO_SECRET_KEY to a long random value of this site's own.",
                id="shanghaien.E001",
            )
        ]
    return []
