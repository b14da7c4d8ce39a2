"""Provably fair dice on the server: the commitment on the invitation, both players'
seeds, the stream the game draws from, the reveal when the game is over, and a secret
that reaches no one before then (docs/fairness.md)."""

import hashlib
import json
import logging
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from django.test import Client

from games import rules
from games.models import Game, Invitation
from games.rules import fairness
from games.rules.cards import DECK
from games.rules.records import check_record
from games.services import commands, invitations

from ..helpers.games import play_to_the_end

pytestmark = pytest.mark.django_db
JSON = {"content_type": "application/json"}


def post(client, url, body):
    return client.post(url, json.dumps(body), **JSON)


def shown(client) -> str:
    """The server's commitment for the player's next game, as the API shows it."""
    return client.get("/api/commitment/").json()["commitment"]


def rolled_dice(game) -> list[int]:
    dice = []
    for event in game.events.order_by("seq"):
        if event.kind == "rolled":
            dice += event.payload["dice"]
    return dice


def test_a_whole_game_through_the_api_draws_from_its_seeds_and_its_export_verifies(
    clients, tmp_path
):
    anna, bernd = clients["anna"], clients["bernd"]
    seed, commitment = "Anna's dice: 7!", shown(anna)
    sent = post(
        anna, "/api/invitations/", {"to": "bernd", "client_seed": seed, "commitment": commitment}
    )
    invitation = sent.json()
    assert invitation["commitment"] == commitment
    assert invitation["client_seed"] == "Anna's dice: 7!"
    assert len(invitation["commitment"]) == 64 and "server_seed" not in sent.content.decode()
    answer = {"client_seed": "b", "commitment": invitation["commitment"]}
    accepted = post(bernd, f"/api/invitations/{invitation['id']}/accept/", answer)
    game_id = accepted.json()["game"]
    during = anna.get(f"/api/games/{game_id}/").json()["fairness"]
    assert during == {
        "scheme": "hmac-sha256-v2",
        "commitment": invitation["commitment"],
        "client_seeds": ["Anna's dice: 7!", "b"],
    }
    play_to_the_end({"anna": anna, "bernd": bernd}, game_id)
    game = Game.objects.get(pk=game_id)
    assert game.status == Game.Status.FINISHED
    export = anna.get(f"/api/games/{game_id}/export/").json()
    revealed = export["fairness"]
    assert (
        hashlib.sha256(bytes.fromhex(revealed["server_seed"])).hexdigest()
        == (invitation["commitment"])
    )
    assert bernd.get(f"/api/games/{game_id}/").json()["fairness"] == revealed
    seed = bytes.fromhex(revealed["server_seed"])
    dice = rolled_dice(game)
    seeds, scheme = ["Anna's dice: 7!", "b"], revealed["scheme"]
    deck, first, expected = fairness.derive(seed, seeds, list(DECK), len(dice), scheme=scheme)
    started = game.events.get(seq=1).payload
    assert (started["deck"], started["first_player"], dice) == (deck, first, expected)
    assert check_record(export).ok
    assert game.fair_position >= 47 + 1 + len(dice)  # every draw took at least one word
    # The stand-alone checker of docs/fairness.md, run as a player would on the download.
    verified = run_checker(export, tmp_path)
    assert (verified.returncode, verified.stdout.strip()) == (0, "verified fair")
    rolls = [e for e in export["events"] if e["event"]["type"] == "rolled"]
    rolls[-1]["event"]["dice"][1] = rolls[-1]["event"]["dice"][1] % 6 + 1
    refused = run_checker(export, tmp_path)
    assert refused.returncode == 1
    assert f"event {rolls[-1]['seq']} (rolled): die 1 is" in refused.stderr


def run_checker(export: dict, tmp_path):
    path = tmp_path / "game.json"
    path.write_text(json.dumps(export))
    checker = Path(__file__).resolve().parents[2] / "static" / "fairness" / "verify_fairness.py"
    return subprocess.run(
        [sys.executable, str(checker), str(path)], capture_output=True, text=True, timeout=60
    )


def test_one_die_changed_fails_at_that_die(clients):
    anna, bernd = clients["anna"], clients["bernd"]
    invitation = post(anna, "/api/invitations/", {"to": "bernd"}).json()
    game_id = post(bernd, f"/api/invitations/{invitation['id']}/accept/", {}).json()["game"]
    play_to_the_end({"anna": anna, "bernd": bernd}, game_id)
    export = anna.get(f"/api/games/{game_id}/export/").json()
    assert export["fairness"]["client_seeds"] == ["", ""]  # no seed: the empty string
    rolls = [e for e in export["events"] if e["event"]["type"] == "rolled"]
    changed = rolls[len(rolls) // 2]
    changed["event"]["dice"][0] = changed["event"]["dice"][0] % 6 + 1
    check = check_record(export)
    assert not check.ok and check.bad_seq == changed["seq"]
    assert f"event {changed['seq']} (rolled): die 0 is" in check.problems[0]
    export["fairness"]["server_seed"] = "00" * 32
    assert "the commitment does not match" in check_record(export).problems[0]


def test_the_server_seed_reaches_no_one_before_the_end(clients, players, admin_client, caplog):
    caplog.set_level(logging.DEBUG)
    anna, bernd, carl = clients["anna"], clients["bernd"], clients["carl"]
    sent = {"to": "bernd", "client_seed": "x", "commitment": shown(anna)}
    invitation = post(anna, "/api/invitations/", sent).json()
    secret = Invitation.objects.get(pk=invitation["id"]).fair_seed
    pages = [
        anna.get("/api/invitations/"),
        bernd.get("/api/invitations/"),
        anna.get("/"),
        bernd.get("/"),
        admin_client.get(f"/admin/games/invitation/{invitation['id']}/change/"),
        admin_client.get("/admin/games/invitation/"),
    ]
    game_id = post(bernd, f"/api/invitations/{invitation['id']}/accept/", {}).json()["game"]
    game = Game.objects.get(pk=game_id)
    assert game.fair_seed == secret
    mover = game.to_move
    state = game.rules_state()
    command = rules.legal_commands(state, state.turn)[0]
    commands.do_command(game.pk, mover, command, game.version, str(uuid.uuid4()))
    for client in (anna, bernd, carl):
        pages += [
            client.get(f"/api/games/{game_id}/"),
            client.get(f"/games/{game_id}/"),
            client.get(f"/api/games/{game_id}/replay/"),
            client.get(f"/games/{game_id}/replay/"),
            client.get(f"/api/games/{game_id}/export/"),
            client.get("/api/games/"),
        ]
    pages += [
        admin_client.get(f"/admin/games/game/{game_id}/change/"),
        admin_client.get("/admin/games/game/"),
        admin_client.get(f"/admin/games/game/?fair_seed={secret}"),
    ]
    for response in pages:
        assert secret not in response.content.decode(), response.request["PATH_INFO"]
    assert secret not in caplog.text
    # A filter on the seed would tell it a character at a time: refused.
    probe = admin_client.get(f"/admin/games/game/?fair_seed__startswith={secret[:2]}")
    assert probe.status_code in (302, 400) or secret[:8] not in probe.content.decode()

    resigning = players["anna"]
    game.refresh_from_db()
    commands.do_command(game.pk, resigning, {"type": "resign"}, game.version, str(uuid.uuid4()))
    assert anna.get(f"/api/games/{game_id}/").json()["fairness"]["server_seed"] == secret
    assert secret in admin_client.get(f"/admin/games/game/{game_id}/change/").content.decode()
    replay = carl.get(f"/games/{game_id}/replay/").content.decode()
    assert "Verified fair" in replay and 'href="/fairness/"' in replay


@pytest.mark.parametrize(
    "seed", ["x" * 65, "café", "tab\there", "line\nbreak", "\x00", 12, None, ["a"], True]
)
def test_a_seed_that_is_not_1_to_64_printable_ascii_is_refused(clients, players, seed):
    sent = post(clients["anna"], "/api/invitations/", {"to": "bernd", "client_seed": seed})
    assert sent.status_code == 400 and sent.json()["error"]["code"] == "bad_client_seed"
    assert not Invitation.objects.exists()
    invitation = invitations.do_invite(players["anna"], to="bernd")
    accepted = post(
        clients["bernd"], f"/api/invitations/{invitation.pk}/accept/", {"client_seed": seed}
    )
    assert accepted.status_code == 400 and not Game.objects.exists()


def test_seeds_from_the_forms_and_a_rematch(clients, players):
    anna, bernd = clients["anna"], clients["bernd"]
    form = {"to": "bernd", "days_per_move": 3, "client_seed": " spaced ", "commitment": shown(anna)}
    anna.post("/invitations/new/", form)
    invitation = Invitation.objects.get()
    assert invitation.client_seed == " spaced "  # as typed
    answer = {"client_seed": "from the form", "commitment": invitation.fair_commitment}
    bernd.post(f"/invitations/{invitation.pk}/accept/", answer)
    game = Game.objects.get()
    assert game.client_seeds == [" spaced ", "from the form"]
    commands.do_command(game.pk, players["anna"], {"type": "resign"}, game.version, "x")
    offer = {"client_seed": "again", "commitment": shown(bernd)}
    rematch = post(bernd, f"/api/games/{game.pk}/rematch/", offer).json()
    assert rematch["client_seed"] == "again" and rematch["commitment"] != invitation.fair_commitment
    answer = {"client_seed": "yes", "commitment": rematch["commitment"]}
    new = post(anna, f"/api/invitations/{rematch['id']}/accept/", answer).json()
    assert Game.objects.get(pk=new["game"]).client_seeds == ["again", "yes"]  # bernd invited


def test_a_game_against_the_computer_has_seeds_too(clients, players):
    from games.queries import bot_of_level

    bot = bot_of_level("deckhand")
    form = {"level": "deckhand", "client_seed": "mine", "commitment": shown(clients["anna"])}
    clients["anna"].post("/play/computer/", form)
    game = Game.objects.get(seats__user=bot)
    assert game.client_seeds == ["mine", ""] and len(game.fair_commitment) == 64


def test_a_game_from_before_the_seeds_still_plays(game, players):
    Game.objects.filter(pk=game.pk).update(
        fair_seed="", fair_commitment="", client_seeds=[], fair_position=0
    )
    game.refresh_from_db()
    state = game.rules_state()
    command = rules.legal_commands(state, state.turn)[0]
    commands.do_command(game.pk, game.to_move, command, game.version, "old")
    game.refresh_from_db()
    assert game.version > 2 and game.fair_position == 0
    assert Client().get("/").status_code == 200
