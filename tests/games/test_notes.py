"""A player's private note on a game: its author reads and writes it; the opponent, a
watcher, a visitor and a moderator never see it, on a page, in the game JSON, the replay
or an export. (The socket frames: tests/realtime/test_note_frames.py.)"""

from __future__ import annotations

import json

import pytest
from django.test import Client

from accounts import guest_accounts
from games.models import GameNote
from games.services import commands, notes
from shanghaien.lib.errors import Forbidden

from ..helpers.games import play_on

pytestmark = pytest.mark.django_db

SECRET = "Bernd bluffs on round 8 <b>&amp; keeps Spanish</b>"


def put(client, game, text, **extra):
    return client.put(
        f"/api/games/{game.pk}/note/",
        data=json.dumps({"text": text}),
        content_type="application/json",
        **extra,
    )


@pytest.fixture
def noted(game, clients):
    """anna's note on her game against bernd."""
    response = put(clients["anna"], game, f"  {SECRET}\nline two  ")
    assert response.status_code == 200, response.content
    return game


def test_the_author_keeps_reads_and_changes_the_note(noted, clients, players):
    answer = clients["anna"].get(f"/api/games/{noted.pk}/note/").json()
    assert answer["text"] == f"{SECRET}\nline two" and answer["updated_at"]
    shown = clients["anna"].get(f"/games/{noted.pk}/").content.decode()
    assert "Bernd bluffs on round 8 &lt;b&gt;&amp;amp; keeps Spanish&lt;/b&gt;" in shown
    assert "<b>&amp; keeps" not in shown  # the text as typed, never as markup
    note = GameNote.objects.get()
    assert (note.game_id, note.author_id) == (noted.pk, players["anna"].pk)
    assert put(clients["anna"], noted, "changed").json()["text"] == "changed"
    assert GameNote.objects.get().text == "changed"  # still one note per author and game
    page = clients["anna"].get(f"/games/{noted.pk}/").content.decode()
    assert ">changed</textarea>" in page and 'id="note"' in page


def test_emptied_the_note_is_deleted(noted, clients):
    answer = put(clients["anna"], noted, "   ").json()
    assert answer == {"text": "", "updated_at": None}
    assert not GameNote.objects.exists()


def test_the_opponent_has_a_note_of_their_own_and_never_sees_the_author_s(noted, clients):
    assert clients["bernd"].get(f"/api/games/{noted.pk}/note/").json()["text"] == ""
    put(clients["bernd"], noted, "anna opens strong")
    assert clients["anna"].get(f"/api/games/{noted.pk}/note/").json()["text"].startswith(SECRET)
    assert GameNote.objects.count() == 2
    urls = (f"/games/{noted.pk}/", f"/api/games/{noted.pk}/", f"/api/games/{noted.pk}/replay/")
    for name, hidden in (("bernd", "Bernd bluffs"), ("anna", "anna opens strong")):
        for url in urls:
            assert hidden not in clients[name].get(url).content.decode(), (name, url)


def test_a_watcher_a_visitor_and_a_moderator_never_see_a_note(noted, clients, mod_client):
    carl = clients["carl"]
    refused = carl.get(f"/api/games/{noted.pk}/note/")
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "not_a_player"
    assert put(carl, noted, "mine").status_code == 403
    assert Client().get(f"/api/games/{noted.pk}/note/").status_code == 401
    pages = [
        (carl, f"/games/{noted.pk}/"),
        (carl, f"/api/games/{noted.pk}/"),
        (Client(), f"/games/{noted.pk}/"),
        (mod_client, f"/games/{noted.pk}/"),
        (mod_client, f"/api/games/{noted.pk}/"),
        (mod_client, f"/admin/games/game/{noted.pk}/change/"),
        (mod_client, "/admin/"),
    ]
    for client, url in pages:
        response = client.get(url, follow=True)
        assert response.status_code == 200, (url, response.status_code)
        body = response.content.decode()
        assert "Bernd bluffs" not in body and "keeps Spanish" not in body, url
    # and the watcher's board has no note box at all
    assert 'id="note"' not in carl.get(f"/games/{noted.pk}/").content.decode()


def test_the_export_holds_the_note_of_the_player_who_asks_only(noted, clients, players):
    put(clients["bernd"], noted, "next time: more tricks")
    play_on(noted)
    exports = {
        name: clients[name].get(f"/api/games/{noted.pk}/export/").json()
        for name in ("anna", "bernd", "carl")
    }
    assert exports["anna"]["note"]["text"].startswith(SECRET)
    assert exports["bernd"]["note"]["text"] == "next time: more tricks"
    assert "note" not in exports["carl"]
    assert "Bernd bluffs" not in json.dumps(exports["bernd"]) + json.dumps(exports["carl"])
    assert "more tricks" not in json.dumps(exports["anna"]) + json.dumps(exports["carl"])
    # the replay page's fairness check reads the export without anybody's note
    for name in ("anna", "bernd", "carl"):
        body = clients[name].get(f"/games/{noted.pk}/replay/").content.decode()
        assert "Bernd bluffs" not in body and "more tricks" not in body


@pytest.mark.parametrize(
    "text, code",
    [
        ("x" * 2001, "too_long"),
        ("a\x00b", "bad_text"),
        ("bell\x07", "bad_text"),
        ("\ud800", "bad_text"),
        (7, "bad_text"),
        (None, "bad_text"),
        (["a"], "bad_text"),
    ],
)
def test_bad_text_is_refused_and_nothing_changes(noted, clients, text, code):
    body = json.dumps({"text": text}) if text != "\ud800" else '{"text": "\\ud800"}'
    response = clients["anna"].put(
        f"/api/games/{noted.pk}/note/", data=body, content_type="application/json"
    )
    assert response.status_code == 400, response.content
    assert response.json()["error"]["code"] == code
    assert GameNote.objects.get().text.startswith(SECRET)


def test_the_longest_note_is_kept_whole(game, clients):
    text = "é\n" * 1000
    assert put(clients["anna"], game, text).json()["text"] == text.strip()


def test_unknown_fields_and_other_games_are_refused(noted, clients):
    response = clients["anna"].put(
        f"/api/games/{noted.pk}/note/",
        data=json.dumps({"text": "x", "author": "bernd"}),
        content_type="application/json",
    )
    assert response.status_code == 400
    assert put(clients["anna"], noted, "x", HTTP_X_NOTHING="1").status_code == 200
    for pk in ("999999", "0", "abc"):
        response = clients["anna"].put(
            f"/api/games/{pk}/note/", data='{"text": "x"}', content_type="application/json"
        )
        assert response.status_code == 404
    csrf = Client(enforce_csrf_checks=True)
    csrf.force_login(noted.seats.get(seat=0).user)
    assert put(csrf, noted, "no token").status_code == 403
    assert GameNote.objects.get().text == "x"


def test_the_form_saves_without_javascript(game, clients):
    response = clients["bernd"].post(f"/games/{game.pk}/note/", {"text": "plain form"}, follow=True)
    assert response.redirect_chain == [(f"/games/{game.pk}/#note", 302)]
    assert "Note saved." in response.content.decode()
    assert GameNote.objects.get().text == "plain form"
    response = clients["bernd"].post(f"/games/{game.pk}/note/", {"text": ""}, follow=True)
    assert "Note deleted." in response.content.decode() and not GameNote.objects.exists()
    response = clients["carl"].post(f"/games/{game.pk}/note/", {"text": "watcher"}, follow=True)
    assert "Only the two players" in response.content.decode() and not GameNote.objects.exists()
    response = clients["bernd"].post(f"/games/{game.pk}/note/", {"text": "\x00"}, follow=True)
    assert "not text" in response.content.decode() and not GameNote.objects.exists()
    assert clients["bernd"].post("/games/999999/note/", {"text": "x"}).status_code == 404
    assert clients["bernd"].get(f"/games/{game.pk}/note/").status_code == 405


def test_a_guest_keeps_no_note():
    guest = guest_accounts.do_make_guest("203.0.113.10")
    client = Client()
    client.force_login(guest)
    client.post("/play/now/", {"level": "deckhand"})
    game_id = guest.seats.get().game_id
    with pytest.raises(Forbidden) as refused:
        notes.do_save_note(game_id, guest, "remember")
    assert refused.value.code == "guest"
    page = client.get(f"/games/{game_id}/").content.decode()
    assert 'id="note"' not in page
    assert not GameNote.objects.exists()


def test_the_board_page_reads_the_note_in_one_statement(game, clients):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as captured:
        clients["anna"].get(f"/games/{game.pk}/")
    reads = [q for q in captured.captured_queries if "games_gamenote" in q["sql"]]
    assert len(reads) == 1
    with CaptureQueriesContext(connection) as captured:
        clients["carl"].get(f"/games/{game.pk}/")
    assert not [q for q in captured.captured_queries if "games_gamenote" in q["sql"]]


def test_a_note_goes_with_its_game_and_a_move_ignores_it(noted, players):
    noted.refresh_from_db()
    mover = noted.to_move
    commands.do_command(noted.pk, mover, {"type": "roll"}, noted.version, "n-1")
    assert GameNote.objects.count() == 1
