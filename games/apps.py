from django.apps import AppConfig


class GamesConfig(AppConfig):
    name = "games"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from . import holiday_clocks
        from .services import upgrade_checks

        holiday_clocks.connect()
        # an account that played a game or has an open invitation stays a person's
        upgrade_checks.connect()
