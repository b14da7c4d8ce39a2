import pytest
from django.contrib.auth.models import Group
from django.test import Client

from moderation.roles import MODERATORS


@pytest.fixture
def moderator(django_user_model):
    user = django_user_model.objects.create_user("mia", password="x", is_staff=True)
    user.groups.add(Group.objects.get(name=MODERATORS))
    return user


@pytest.fixture
def mod_client(moderator):
    client = Client()
    client.force_login(moderator)
    return client


def act(client, path, action, pks, **fields):
    """Run an admin action with its reason form already filled in."""
    data = {"action": action, "_selected_action": [str(pk) for pk in pks], "apply": "1", **fields}
    return client.post(path, data)
