from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "accounts"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from django.contrib.auth.signals import user_logged_out
        from django.db.models.signals import post_delete, post_save

        from . import online
        from .devices import device_added_or_removed, forget_on_logout
        from .models import ApiToken, PushSubscription
        from .tokens import token_deleted

        online.connect()
        register_tokens()
        post_delete.connect(token_deleted, sender=ApiToken, dispatch_uid="accounts.token_deleted")

        user_logged_out.connect(forget_on_logout, dispatch_uid="accounts.devices.forget_on_logout")
        for signal in (post_save, post_delete):
            signal.connect(device_added_or_removed, sender=PushSubscription)


def register_tokens() -> None:
    """The sockets take personal API tokens on the handshake (shanghaien.lib.sockets.TOKENS)."""
    from shanghaien.lib import sockets

    from . import tokens

    sockets.TOKENS.use = tokens.use_token
    sockets.TOKENS.group = tokens.token_group
    sockets.TOKENS.alive = tokens.token_alive
