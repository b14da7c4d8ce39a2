from django.contrib.auth.models import AbstractUser


class User(AbstractUser):
    """A player or an admin. Our own model from the start, so that it can grow."""
