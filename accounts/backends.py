from allauth.account.auth_backends import AuthenticationBackend


class SuspensionAwareBackend(AuthenticationBackend):
    """django-allauth's backend (username or email), refusing users while they are
    suspended: at log in, and for every request of a session they already had."""

    def user_can_authenticate(self, user):
        return super().user_can_authenticate(user) and not getattr(user, "is_suspended", False)
