"""Following a player: no consent, refused and removed by a block, from the profile and
the API."""

import json
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from accounts import follows
from accounts.blocks import do_block, do_unblock
from accounts.models import Follow
from shanghaien.lib.errors import BadRequest, Conflict, Forbidden, NotFound

pytestmark = pytest.mark.django_db


def test_following_needs_no_consent_and_twice_is_once(players):
    anna, bernd = players["anna"], players["bernd"]
    follows.do_follow(anna, "BERND")
    follows.do_follow(anna, "bernd")
    assert list(Follow.objects.values_list("follower__username", "followed__username")) == [
        ("anna", "bernd")
    ]
    assert follows.follows(anna, bernd) and not follows.follows(bernd, anna)
    assert follows.followed_by(anna) == [bernd]
    follows.do_unfollow(anna, "Bernd")
    follows.do_unfollow(anna, "bernd")  # not following: nothing to do
    assert not Follow.objects.exists()


def test_what_cannot_be_followed(players, django_user_model):
    anna = players["anna"]
    with pytest.raises(BadRequest) as refused:
        follows.do_follow(anna, "anna")
    assert refused.value.code == "cannot_follow_yourself"
    with pytest.raises(NotFound):
        follows.do_follow(anna, "nobody")
    with pytest.raises(BadRequest):
        follows.do_follow(anna, "no spaces")
    django_user_model.objects.create_user("gone", is_active=False)
    guest = django_user_model.objects.create_user(
        "Guest-ABC234", guest_until=timezone.now() + timedelta(hours=1)
    )
    for name in ("gone", "Guest-ABC234"):
        with pytest.raises(NotFound):
            follows.do_follow(anna, name)
    with pytest.raises(Forbidden) as refused:
        follows.do_follow(guest, "anna")
    assert refused.value.code == "guest"
    assert not Follow.objects.exists()


def test_a_block_either_way_refuses_a_follow_and_removes_the_existing_ones(players):
    anna, bernd = players["anna"], players["bernd"]
    follows.do_follow(anna, "bernd")
    follows.do_follow(bernd, "anna")
    follows.do_follow(anna, "carl")
    do_block(bernd, "anna")  # bernd blocks anna: both follows between them go
    assert list(Follow.objects.values_list("follower__username", "followed__username")) == [
        ("anna", "carl")
    ]
    for who, whom in ((anna, "bernd"), (bernd, "anna")):
        with pytest.raises(Forbidden) as refused:
            follows.do_follow(who, whom)
        assert refused.value.code == "blocked"
    do_unblock(bernd, "anna")
    follows.do_follow(anna, "bernd")
    assert follows.follows(anna, bernd)


def test_a_block_made_some_other_way_hides_the_follow(players):
    from accounts.models import Block

    anna, bernd = players["anna"], players["bernd"]
    follows.do_follow(anna, "bernd")
    Block.objects.create(user=bernd, blocked=anna)  # as the admin would
    assert not follows.follows(anna, bernd)
    assert follows.followed_by(anna) == []
    assert follows.followed_among(anna, [bernd.pk]) == set()


def test_a_player_follows_a_bounded_number(players, django_user_model, monkeypatch):
    monkeypatch.setattr(follows, "FOLLOWS_MAX", 2)
    follows.do_follow(players["anna"], "bernd")
    follows.do_follow(players["anna"], "carl")
    django_user_model.objects.create_user("dora")
    with pytest.raises(Conflict) as refused:
        follows.do_follow(players["anna"], "dora")
    assert refused.value.code == "too_many_follows"
    follows.do_follow(players["anna"], "carl")  # one already followed is still fine
    assert Follow.objects.count() == 2


def test_follow_and_unfollow_from_the_profile(players, clients):
    page = clients["anna"].get("/users/bernd/").content.decode()
    assert 'action="/users/bernd/follow/"' in page
    response = clients["anna"].post("/users/bernd/follow/", follow=True)
    text = response.content.decode()
    assert "You follow bernd: see them on your friends page." in text
    assert 'action="/users/bernd/unfollow/"' in text
    assert follows.follows(players["anna"], players["bernd"])
    response = clients["anna"].post("/users/bernd/unfollow/", {"next": "/friends/"})
    assert response["Location"] == "/friends/"
    assert not Follow.objects.exists()


def test_the_profile_offers_no_follow_of_oneself_of_a_blocked_player_or_to_visitors(
    players, clients
):
    assert "/follow/" not in clients["anna"].get("/users/anna/").content.decode()
    assert "/follow/" not in Client().get("/users/bernd/").content.decode()
    do_block(players["anna"], "bernd")
    assert "/follow/" not in clients["anna"].get("/users/bernd/").content.decode()
    refused = clients["bernd"].post("/users/anna/follow/", follow=True).content.decode()
    assert "one of you blocks the other" in refused
    assert not Follow.objects.exists()


def test_strangers_get_requests_and_elsewhere_change_nothing(players, clients):
    assert Client().post("/users/bernd/follow/").status_code == 302  # to the login page
    assert clients["anna"].get("/users/bernd/follow/").status_code == 405
    response = clients["anna"].post("/users/bernd/follow/", {"next": "https://evil.example/"})
    assert response["Location"] == "/users/bernd/"  # never sent to another site
    assert clients["anna"].post("/users/nobody/follow/").status_code == 302
    assert Follow.objects.count() == 1


def _post(client, path, body):
    return client.post(path, json.dumps(body), content_type="application/json")


def test_the_follow_endpoints(players, clients):
    client = clients["anna"]
    answer = _post(client, "/api/follows/", {"username": "Bernd"})
    assert answer.status_code == 201, answer.content
    assert answer.json() == {"following": "bernd"}
    assert client.get("/api/follows/").json() == {"following": ["bernd"]}
    refused = _post(client, "/api/follows/", {"username": "anna"})
    assert refused.status_code == 400
    assert refused.json()["error"]["code"] == "cannot_follow_yourself"
    assert _post(client, "/api/follows/", {"username": "nobody"}).status_code == 404
    assert _post(client, "/api/follows/", {"username": 3}).status_code == 400
    assert _post(client, "/api/follows/", {"name": "bernd"}).status_code == 400
    do_block(players["bernd"], "carl")
    assert _post(clients["carl"], "/api/follows/", {"username": "bernd"}).status_code == 403
    answer = _post(client, "/api/follows/bernd/remove/", {})
    assert answer.status_code == 200 and answer.json() == {"unfollowed": "bernd"}
    assert client.get("/api/follows/").json() == {"following": []}
    assert Client().get("/api/follows/").status_code == 401
