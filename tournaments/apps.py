from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    name = "tournaments"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from games import jobs
        from games.services import game_log

        from . import live, telling
        from .services import entries, stages

        # the worker starts tournaments at their deadline and each next stage or game
        jobs.JOBS.setdefault("tournaments", stages.check_due)

        # a tournament game's end counts in its match and standings, in its transaction
        if stages.game_ended not in game_log.ended_hooks:
            game_log.ended_hooks.append(stages.game_ended)

        # an account in a tournament not over does not become a bot account
        entries.connect()

        # open tournament pages watch it over the lobby socket
        live.register()
        # the words of its notifications, in each player's language
        telling.register()
