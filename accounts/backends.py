from django.contrib.auth.backends import ModelBackend


class SuspensionAwareBackend(ModelBackend):
    """Django's backend, refusing users while they are suspended (login and sessions)."""

    def user_can_authenticate(self, user):
        return super().user_can_authenticate(user) and not getattr(user, "is_suspended", False)
