from django.apps import AppConfig
from django.db.models.signals import post_migrate


class ModerationConfig(AppConfig):
    name = "moderation"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from .roles import ensure_moderators_group

        post_migrate.connect(ensure_moderators_group, sender=self)
