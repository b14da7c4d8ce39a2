"""The server commits first, in every game: each player is shown the commitment of the
server seed their seed will be mixed with before they send that seed — invitations,
games against the computer (where the opponent answers at once), rematches and the
accept forms (docs/fairness.md, "Who commits when")."""

import hashlib
import json
import re
import uuid

import pytest

from games.models import Game, Invitation, PendingSeed
from games.services import commands, commitments

pytestmark = pytest.mark.django_db
JSON = {"content_type": "application/json"}


def post(client, url, body):
    return client.post(url, json.dumps(body), **JSON)


def hidden_commitments(html: str) -> list[str]:
    return re.findall(r'name="commitment" value="([0-9a-f]{64})"', html)


def resign(game_id, user):
    game = Game.objects.get(pk=game_id)
    commands.do_command(game.pk, user, {"type": "resign"}, game.version, str(uuid.uuid4()))


def reveal(game_id) -> str:
    return Game.objects.get(pk=game_id).fair_seed


def test_a_computer_game_over_the_api_answers_a_commitment_shown_in_an_earlier_request(
    clients, players
):
    anna = clients["anna"]
    shown = anna.get("/api/commitment/").json()  # request 1
    assert set(shown) == {"commitment", "scheme", "made_at"}
    assert anna.get("/api/commitment/").json() == shown  # looking again changes nothing
    body = {"to": "Deckhand", "client_seed": "my own", "commitment": shown["commitment"]}
    sent = post(anna, "/api/invitations/", body)  # request 2: the computer accepts at once
    assert sent.status_code == 201, sent.content
    invitation = Invitation.objects.get(pk=sent.json()["id"])
    game = invitation.game
    assert game.fair_commitment == shown["commitment"] == invitation.fair_commitment
    assert game.client_seeds == ["my own", ""]  # the computer's seed: empty, fixed before
    assert game.fair_scheme == "hmac-sha256-v2"
    # the seed behind the commitment was made before the request that sent anna's seed
    assert shown["made_at"] < invitation.created_at.isoformat()
    resign(game.pk, players["anna"])
    assert hashlib.sha256(bytes.fromhex(reveal(game.pk))).hexdigest() == shown["commitment"]
    # and the player's next game has another one, shown at once
    assert anna.get("/api/commitment/").json()["commitment"] != shown["commitment"]


def test_a_seed_without_the_commitment_it_answers_is_refused_and_changes_nothing(clients):
    anna = clients["anna"]
    before = anna.get("/api/commitment/").json()["commitment"]
    sent = post(anna, "/api/invitations/", {"to": "Deckhand", "client_seed": "mine"})
    assert sent.status_code == 400 and sent.json()["error"]["code"] == "commitment_required"
    for bad in (12, ["a"], "abc", "g" * 64, True):
        body = {"to": "Deckhand", "client_seed": "mine", "commitment": bad}
        sent = post(anna, "/api/invitations/", body)
        assert sent.status_code == 400 and sent.json()["error"]["code"] == "bad_commitment"
    assert not Invitation.objects.exists() and not Game.objects.exists()
    assert anna.get("/api/commitment/").json()["commitment"] == before


def test_a_commitment_used_meanwhile_is_refused_with_the_new_one(clients):
    """Two tabs show the same commitment; the second to send gets the new one back."""
    anna = clients["anna"]
    first = anna.get("/api/commitment/").json()["commitment"]
    body = {"to": "bernd", "client_seed": "tab 1", "commitment": first}
    assert post(anna, "/api/invitations/", body).status_code == 201
    again = post(anna, "/api/invitations/", {**body, "client_seed": "tab 2"})
    assert again.status_code == 409
    error = again.json()["error"]
    current = anna.get("/api/commitment/").json()["commitment"]
    assert error["code"] == "commitment_changed" and error["commitment"] == current != first
    assert Invitation.objects.count() == 1
    assert post(anna, "/api/invitations/", {**body, "commitment": current}).status_code == 201


def test_a_commitment_that_was_never_shown_is_refused(clients, players):
    made_up = hashlib.sha256(b"guess").hexdigest()
    body = {"to": "Deckhand", "client_seed": "mine", "commitment": made_up}
    sent = post(clients["carl"], "/api/invitations/", body)  # carl has looked at nothing
    assert sent.status_code == 409 and sent.json()["error"]["code"] == "commitment_changed"
    assert not Game.objects.exists()


def test_the_lobby_shows_the_commitment_and_its_forms_send_it(clients, players):
    anna = clients["anna"]
    html = anna.get("/").content.decode()
    pending = PendingSeed.objects.get(user=players["anna"])
    assert hidden_commitments(html) == [pending.commitment, pending.commitment]  # both forms
    assert pending.commitment[:12] + "…" in html  # short, on screen
    assert f'data-copy="{pending.commitment}"' in html  # the copy button holds all of it
    assert pending.seed not in html
    form = {"level": "captain", "client_seed": "typed", "commitment": pending.commitment}
    game_url = anna.post("/play/computer/", form)["Location"]
    game = Game.objects.get(pk=int(game_url.strip("/").split("/")[-1]))
    assert game.fair_commitment == pending.commitment and game.client_seeds == ["typed", ""]
    # the same form sent again (a second tab): refused, and the lobby says so
    again = anna.post("/play/computer/", form, follow=True)
    assert Game.objects.count() == 1
    assert "has been used or replaced" in again.content.decode()
    assert pending.commitment not in hidden_commitments(again.content.decode())


def test_an_invitation_shows_its_commitment_before_it_is_accepted(clients, players):
    anna, bernd = clients["anna"], clients["bernd"]
    shown = anna.get("/api/commitment/").json()["commitment"]
    body = {"to": "bernd", "client_seed": "a", "commitment": shown}
    invitation = post(anna, "/api/invitations/", body).json()
    assert invitation["commitment"] == shown
    listed = bernd.get("/api/invitations/").json()
    assert [i["commitment"] for i in listed["received"]] == [shown]
    lobby = bernd.get("/").content.decode()
    assert f'data-copy="{shown}"' in lobby
    assert f'name="commitment" value="{shown}"' in lobby  # the accept form answers it
    wrong = {"client_seed": "b", "commitment": "0" * 64}
    refused = post(bernd, f"/api/invitations/{invitation['id']}/accept/", wrong)
    assert refused.status_code == 409 and not Game.objects.exists()
    bernd.post(
        f"/invitations/{invitation['id']}/accept/", {"client_seed": "b", "commitment": shown}
    )
    game = Game.objects.get()
    assert game.fair_commitment == shown and game.client_seeds == ["a", "b"]


def test_a_rematch_against_the_computer_answers_the_commitment_beside_its_button(clients, players):
    anna = clients["anna"]
    first = commitments.shown(players["anna"]).commitment
    body = {"to": "Boatswain", "client_seed": "one", "commitment": first}
    game_id = post(anna, "/api/invitations/", body).json()["game"]
    resign(game_id, players["anna"])
    board = anna.get(f"/games/{game_id}/").content.decode()
    beside = re.search(r'data-commitment="([0-9a-f]{64})"', board).group(1)
    assert beside != first and beside == PendingSeed.objects.get(user=players["anna"]).commitment
    without = post(anna, f"/api/games/{game_id}/rematch/", {"client_seed": "two"})
    assert without.status_code == 400
    rematch = post(
        anna, f"/api/games/{game_id}/rematch/", {"client_seed": "two", "commitment": beside}
    )
    assert rematch.status_code == 201, rematch.content
    new = Game.objects.get(pk=rematch.json()["game"])
    assert new.fair_commitment == beside and new.client_seeds == ["two", ""]


def test_no_seed_at_all_still_starts_a_game(clients, players):
    """A player who sends no seed answers nothing: the server's seed alone decides."""
    sent = post(clients["anna"], "/api/invitations/", {"to": "Deckhand"})
    assert sent.status_code == 201
    assert Game.objects.get().client_seeds == ["", ""]


def test_an_invitation_made_before_the_new_scheme_starts_a_game_under_its_own(clients, players):
    from games.services import invitations

    invitation = invitations.do_invite(players["anna"], to="bernd")
    Invitation.objects.filter(pk=invitation.pk).update(fair_scheme="hmac-sha256-v1")
    game = invitations.do_accept_invitation(invitation.pk, players["bernd"])
    assert game.fair_scheme == "hmac-sha256-v1"
    resign(game.pk, players["anna"])
    replay = clients["anna"].get(f"/games/{game.pk}/replay/").content.decode()
    assert "Verified fair" in replay and "hmac-sha256-v1" in replay
