"""Blocking from another player's profile: a button, no API needed."""

import pytest
from django.test import Client

from accounts.models import Block
from games.services import invitations
from shanghaien.lib.errors import ServiceError

pytestmark = pytest.mark.django_db


def test_a_player_blocks_and_unblocks_from_the_profile(players, clients):
    anna, bernd = players["anna"], players["bernd"]
    page = clients["anna"].get("/users/bernd/").content.decode()
    assert 'action="/users/bernd/block/"' in page
    response = clients["anna"].post("/users/bernd/block/", follow=True)
    assert Block.objects.filter(user=anna, blocked=bernd).exists()
    assert "You blocked bernd" in response.content.decode()
    assert 'action="/users/bernd/unblock/"' in response.content.decode()
    with pytest.raises(ServiceError):
        invitations.do_invite(bernd, to="anna")  # what a block is for
    clients["anna"].post("/users/bernd/unblock/")
    assert not Block.objects.exists()
    assert invitations.do_invite(bernd, to="anna")


def test_no_block_button_on_ones_own_profile_or_for_visitors(players, clients):
    assert "/block/" not in clients["anna"].get("/users/anna/").content.decode()
    assert "/block/" not in Client().get("/users/anna/").content.decode()
    refused = clients["anna"].post("/users/anna/block/", follow=True)
    assert "You cannot block yourself." in refused.content.decode()
    assert not Block.objects.exists()


def test_strangers_and_get_requests_change_nothing(players, clients):
    assert Client().post("/users/bernd/block/").status_code == 302  # to the login page
    assert clients["anna"].get("/users/bernd/block/").status_code == 405
    assert clients["anna"].post("/users/nobody/block/").status_code == 302
    assert not Block.objects.exists()
