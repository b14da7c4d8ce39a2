"""The replay and the export: read from the event log, shown only to whom they may be."""

import json

import pytest

from games import rules
from games.models import Game
from games.rules.records import check_record
from games.rules.records import main as check_file

from ..helpers.games import abort_as_before, assert_no_secrets, play_on

pytestmark = pytest.mark.django_db


def fold_views(game, side):
    """The board after each event, folded from scratch for every prefix of the log."""
    events = [e.as_rules_event() for e in game.events.order_by("seq")]
    views = []
    for n in range(1, len(events) + 1):
        view = rules.player_view(rules.replay(events[:n]), side)
        view["legal"] = []
        views.append(view)
    return views


def test_the_replay_at_every_step_equals_the_fold_of_the_events_up_to_it(game, players, clients):
    game = play_on(game, seed=3)
    assert game.status == Game.Status.FINISHED
    for name, side in (("anna", 0), ("bernd", 1)):
        response = clients[name].get(f"/api/games/{game.pk}/replay/")
        assert response.status_code == 200
        body = response.json()
        assert_no_secrets(body)
        steps = body["steps"]
        assert [s["seq"] for s in steps] == list(range(1, game.version + 1))
        assert [s["view"] for s in steps] == fold_views(game, side)
        assert body["players"] == {"me": name, "opponent": "bernd" if side == 0 else "anna"}
        # the replay draws what the view decides, as the board does, at every step
        for step in steps:
            view = step["view"]
            assert view["must_shanghai"] in (None, "no_dice", "one_die")
            for trick in view["me"]["tricks"] + view["opponent"]["tricks"]:
                assert trick["usable"] == (trick["block"] is None)
        assert any(s["view"]["round_end"] for s in steps)
        final = steps[-1]["view"]["result"]
        assert final["played"] and len(final["nations"]) == 8
        assert (final["me"]["total"], final["opponent"]["total"]) == (
            (game.score0, game.score1) if side == 0 else (game.score1, game.score0)
        )


def test_the_replay_marks_every_round_and_tells_each_move(game, players, clients):
    game = play_on(game, seed=5)
    body = clients["carl"].get(f"/api/games/{game.pk}/replay/").json()  # a spectator
    steps = body["steps"]
    assert [r["round"] for r in body["rounds"]] == list(range(1, 9))
    for mark in body["rounds"]:
        assert steps[mark["step"]]["kind"] == "round_started"
        assert steps[mark["step"]]["view"]["round"] == mark["round"]
    rolls = [s for s in steps if s["kind"] == "rolled"]
    assert rolls and all(
        s["text"].startswith(("anna rolled", "bernd rolled")) and s["by"] in ("me", "opponent")
        for s in rolls
    )
    assert body["players"] == {"me": "anna", "opponent": "bernd"}  # seat 0's side by default
    other = clients["carl"].get(f"/api/games/{game.pk}/replay/?as=BERND").json()
    assert other["players"] == {"me": "bernd", "opponent": "anna"}
    assert [s["view"] for s in other["steps"]] == fold_views(game, 1)


def test_a_game_in_progress_is_replayed_only_by_its_players_from_their_side(game, players, clients):
    game = play_on(game, seed=1, until_version=25)
    assert game.status == Game.Status.ACTIVE
    mine = clients["bernd"].get(f"/api/games/{game.pk}/replay/")
    assert mine.status_code == 200
    assert_no_secrets(mine.json())
    assert [s["view"] for s in mine.json()["steps"]] == fold_views(game, 1)
    assert '"deck":' not in json.dumps(mine.json())  # deck_count only
    stranger = clients["carl"].get(f"/api/games/{game.pk}/replay/")
    assert stranger.status_code == 403 and stranger.json()["error"]["code"] == "game_not_over"
    peek = clients["bernd"].get(f"/api/games/{game.pk}/replay/?as=anna")
    assert peek.status_code == 403 and peek.json()["error"]["code"] == "game_not_over"


def test_bad_replay_requests_get_clear_errors(game, clients):
    assert clients["anna"].get("/api/games/99999/replay/").status_code == 404
    wrong = clients["anna"].get(f"/api/games/{game.pk}/replay/?as=carl")
    assert wrong.status_code == 404 and wrong.json()["error"]["code"] == "not_a_player"
    from django.test import Client

    anonymous = Client().get(f"/api/games/{game.pk}/replay/")
    assert anonymous.status_code == 401
    assert clients["anna"].post(f"/api/games/{game.pk}/replay/").status_code == 405


def test_the_replay_page_lists_every_move_and_refuses_strangers_politely(game, players, clients):
    active = clients["carl"].get(f"/games/{game.pk}/replay/")
    assert active.status_code == 403
    assert b"replayed only by its players" in active.content
    game = play_on(game, seed=2)
    page = clients["carl"].get(f"/games/{game.pk}/replay/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "Round 8" in html and 'id="replay"' in html
    assert f"/api/games/{game.pk}/export/" in html and "?as=bernd" in html
    assert page.context["config"]["source"] == f"/api/games/{game.pk}/replay/?as=anna"
    packed = clients["carl"].get(f"/api/games/{game.pk}/replay/", HTTP_ACCEPT_ENCODING="gzip")
    assert packed["Content-Encoding"] == "gzip"
    assert len(packed.content) * 20 < len(
        clients["carl"].get(f"/api/games/{game.pk}/replay/").content
    )
    from django.test import Client

    assert Client().get(f"/games/{game.pk}/replay/").status_code == 302  # to the login page


def test_the_export_is_given_once_the_game_is_over_and_replays_to_its_result(
    game, players, clients, tmp_path
):
    early = clients["anna"].get(f"/api/games/{game.pk}/export/")
    assert early.status_code == 409 and early.json()["error"]["code"] == "game_not_over"
    game = play_on(game, seed=4)
    response = clients["carl"].get(f"/api/games/{game.pk}/export/")
    assert response.status_code == 200
    record = response.json()
    assert record["format"] == "shanghaien-game" and record["players"] == ["anna", "bernd"]
    assert len(record["events"][0]["event"]["deck"]) == 48  # the secret, now that it is over
    assert record["result"]["scores"] == [game.score0, game.score1]
    check = check_record(record)
    assert check.ok, check.problems
    assert check.replayed == {
        "reason": game.result_reason,
        "winner": record["result"]["winner"],
        "scores": [game.score0, game.score1],
    }
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record))
    assert check_file([str(path)]) == 0


def test_a_tampered_record_does_not_check(game, players, clients, tmp_path):
    game = play_on(game, seed=6)
    record = clients["anna"].get(f"/api/games/{game.pk}/export/").json()
    claimed = json.loads(json.dumps(record))
    claimed["result"]["scores"][0] += 1
    assert not check_record(claimed).ok
    reordered = json.loads(json.dumps(record))
    first = reordered["events"][0]["event"]
    first["deck"] = list(reversed(first["deck"]))  # another shuffle: another game
    assert not check_record(reordered).ok
    cut = json.loads(json.dumps(record))
    del cut["events"][-1]
    assert check_record(cut).problems == ("the events do not reach the end of the game",)
    path = tmp_path / "game.json"
    path.write_text(json.dumps(claimed))
    assert check_file([str(path)]) == 1


def test_an_aborted_game_exports_and_replays_to_no_result(game, players, clients):
    abort_as_before(game)  # a game from before the rule that a dealt game cannot be called off
    record = clients["bernd"].get(f"/api/games/{game.pk}/export/").json()
    assert record["result"]["status"] == "aborted"
    check = check_record(record)
    assert check.ok and check.replayed["reason"] == "aborted" and not check.fair
    steps = clients["carl"].get(f"/api/games/{game.pk}/replay/").json()["steps"]
    assert steps[-1]["view"]["result"]["reason"] == "aborted"
