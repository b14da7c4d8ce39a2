"""The tournaments' JSON API: the list and its cursor, making one, one tournament whole
(groups, standings, matches and their games), the actions, and every refusal in the
envelope with its code, changing nothing."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from django.test import Client
from django.utils import timezone

from tournaments import queries
from tournaments.models import Entry, Tournament

from .conftest import active_games, higher_seed_wins, open_tournament, play_stage, started

pytestmark = pytest.mark.django_db


def api(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def post(client, path, body=None):
    return client.post(path, json.dumps(body or {}), content_type="application/json")


def body(**changes):
    data = {
        "name": "Winter cup",
        "format": "knockout",
        "signup_deadline": (timezone.now() + dt.timedelta(days=2)).isoformat(),
    }
    data.update(changes)
    return data


def test_making_a_tournament(make_players):
    (anna,) = make_players(1)
    response = post(
        api(anna),
        "/api/tournaments/",
        body(bank={"start_hours": 72, "increment_hours": 24, "cap_hours": 168}, rated=False),
    )
    assert response.status_code == 201, response.content
    made = response.json()
    t = Tournament.objects.get()
    assert made["id"] == t.pk and made["status"] == "signup" and made["entrants"] == 0
    assert made["bank"] == {"start_hours": 72, "increment_hours": 24, "cap_hours": 168}
    assert made["days_per_move"] is None and made["rated"] is False and not t.rated
    assert made["created_by"] == anna.username


@pytest.mark.parametrize(
    ("changes", "code"),
    [
        ({"format": "swiss"}, "bad_tournament"),
        ({"name": ""}, "bad_tournament"),
        ({"days_per_move": 4}, "bad_days_per_move"),
        ({"days_per_move": "3"}, "bad_days_per_move"),
        ({"min_rating": -5}, "bad_limits"),
        ({"signup_deadline": "tomorrow"}, "bad_tournament"),
        ({"bank": {"start_hours": 0, "increment_hours": 1, "cap_hours": 2}}, "bad_bank"),
        ({"bank": {"start_hours": 72, "increment_hours": 24, "cap_hours": 48}}, "bad_bank"),
        ({"bank": {"start_hours": 72, "increment_hours": 24, "cap_hours": 721}}, "bad_bank"),
        ({"colour": "red"}, "bad_request"),
    ],
)
def test_a_bad_body_is_refused_with_its_code(make_players, changes, code):
    (anna,) = make_players(1)
    response = post(api(anna), "/api/tournaments/", body(**changes))
    assert response.status_code == 400, response.content
    assert response.json()["error"]["code"] == code
    assert not Tournament.objects.exists()


def test_the_service_refuses_what_the_declaration_lets_through(make_players):
    (anna,) = make_players(1)
    past = (timezone.now() - dt.timedelta(days=1)).isoformat()
    response = post(api(anna), "/api/tournaments/", body(signup_deadline=past))
    assert response.status_code == 400
    assert response.json()["error"]["code"].startswith("bad_")
    assert not Tournament.objects.exists()


def test_the_list_pages_with_its_cursor(make_players, monkeypatch):
    monkeypatch.setattr(queries, "LIST_PAGE", 2)
    creators = make_players(5, prefix="c")
    for creator in creators:
        open_tournament(creator, "knockout")
    client = api(creators[0])
    seen, url = [], "/api/tournaments/?status=signup"
    while url:
        page = client.get(url).json()
        seen += [t["id"] for t in page["tournaments"]]
        url = page["next"]
    assert sorted(seen) == sorted(Tournament.objects.values_list("pk", flat=True))
    assert len(seen) == len(set(seen)) == 5
    for bad in ("status=over", "status=signup&after=nonsense"):
        response = client.get(f"/api/tournaments/?{bad}")
        assert response.status_code == 400
        assert response.json()["error"]["code"] in ("bad_status", "bad_cursor")
    assert client.get("/api/tournaments/?status=running").json()["tournaments"] == []


def test_one_tournament_whole_with_its_groups_matches_and_games(make_players):
    creator, *players = make_players(9)
    t = started(creator, "groups_knockout", players[:8], group_size=4, advance=2)
    client = api(players[0])
    whole = client.get(f"/api/tournaments/{t.pk}/").json()
    assert whole["status"] == "running" and whole["entrants"] == 8
    assert len(whole["groups"]) == 2
    assert all(len(g["standings"]) == 4 for g in whole["groups"])
    game_ids = {g["game"] for m in whole["matches"] for g in m["games"]}
    assert game_ids == {mg.game_id for mg in active_games(t)}
    for game_id in list(game_ids)[:2]:
        assert client.get(f"/api/games/{game_id}/").status_code == 200
    for _stage in range(4):  # the groups, the semi-finals, the final
        if Tournament.objects.get(pk=t.pk).status != "running":
            break
        t.refresh_from_db()
        play_stage(t, higher_seed_wins)
    whole = client.get(f"/api/tournaments/{t.pk}/").json()
    assert whole["status"] == "finished" and whole["winner"]
    assert {e["final_place"] for e in whole["entries"]} >= {1, 2}
    knockout = [m for m in whole["matches"] if m["group"] is None]
    assert knockout and knockout[-1]["winner"] == whole["winner"]


def test_join_leave_start_withdraw_cancel(make_players, staff):
    creator, anna, bernd, carl = make_players(4)
    t = open_tournament(creator, "round_robin", min_players=3)
    for player in (anna, bernd, carl):
        response = post(api(player), f"/api/tournaments/{t.pk}/join/")
        assert response.status_code == 200, response.content
    assert response.json()["entrants"] == 3
    again = post(api(anna), f"/api/tournaments/{t.pk}/join/")
    assert again.status_code == 409 and again.json()["error"]["code"]
    assert post(api(carl), f"/api/tournaments/{t.pk}/leave/").status_code == 200
    refused = post(api(anna), f"/api/tournaments/{t.pk}/start/")  # not the creator
    assert refused.status_code in (403, 409) and refused.json()["error"]["code"]
    assert post(api(creator), f"/api/tournaments/{t.pk}/start/").status_code in (403, 409)
    post(api(carl), f"/api/tournaments/{t.pk}/join/")
    started_ = post(api(creator), f"/api/tournaments/{t.pk}/start/")
    assert started_.status_code == 200 and started_.json()["status"] == "running"
    assert post(api(bernd), f"/api/tournaments/{t.pk}/withdraw/").status_code == 200
    assert Entry.objects.get(tournament=t, user=bernd).status == "withdrawn"
    denied = post(api(creator), f"/api/tournaments/{t.pk}/cancel/")  # staff only now
    assert denied.status_code == 403
    cancelled = post(api(staff), f"/api/tournaments/{t.pk}/cancel/")
    assert cancelled.status_code == 200 and cancelled.json()["status"] == "cancelled"


def test_a_missing_tournament_is_a_404_in_the_envelope(make_players):
    (anna,) = make_players(1)
    client = api(anna)
    for path in ("/api/tournaments/0/", "/api/tournaments/99999/", "/api/tournaments/x/"):
        response = client.get(path)
        assert response.status_code == 404 and response.json()["error"]["code"] == "not_found"
    response = post(client, "/api/tournaments/99999/join/")
    assert response.status_code == 404 and response.json()["error"]["code"]
    assert Client().get("/api/tournaments/").status_code == 401
