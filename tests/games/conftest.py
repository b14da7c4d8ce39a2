import pytest
from django.test import Client

from games import services


@pytest.fixture
def players(django_user_model):
    return {
        name: django_user_model.objects.create_user(name, password="tavern-dice-42")
        for name in ("anna", "bernd", "carl")
    }


@pytest.fixture
def clients(players):
    logged_in = {}
    for name, user in players.items():
        client = Client()
        client.force_login(user)
        logged_in[name] = client
    return logged_in


@pytest.fixture
def game(players):
    """A fresh game between anna (seat 0) and bernd (seat 1)."""
    invitation = services.do_invite(players["anna"], to="bernd")
    return services.do_accept_invitation(invitation.pk, players["bernd"])


def on_turn(game, clients):
    """(name of the player on turn, their client, the other's name)."""
    game.refresh_from_db()
    name = game.to_move.username
    other = "bernd" if name == "anna" else "anna"
    return name, clients[name], other
