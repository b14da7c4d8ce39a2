"""Playing games through the JSON API in tests."""

from __future__ import annotations

import json
import random
import uuid

from games.rules import CARDS

CATALOGUE = {card_id: i for i, card_id in enumerate(CARDS)}
SECRET_KEYS = {"deck", "state", "seed", "server_seed", "fair_seed"}


def assert_no_secrets(data, over: bool = False) -> None:
    """No secret key anywhere, and no long list of cards in an order other than the
    catalogue's. The server's seed of the dice may show once the game is over."""
    if isinstance(data, dict):
        over = over or data.get("status") in ("finished", "aborted", "annulled")
        secret = SECRET_KEYS - {"server_seed"} if over else SECRET_KEYS
        assert not secret & set(data), f"secret key in {sorted(data)}"
        for value in data.values():
            assert_no_secrets(value, over)
    elif isinstance(data, list):
        ids = [c["id"] if isinstance(c, dict) and "id" in c else c for c in data]
        if len(ids) > 6 and all(isinstance(i, str) and i in CATALOGUE for i in ids):
            order = [CATALOGUE[i] for i in ids]
            assert order == sorted(order), "a list of cards in a revealing order"
        for value in data:
            assert_no_secrets(value, over)


def play_on(game, seed=0, until_version=None):
    """Random legal commands through the service, until the game ends (or a version)."""
    from games import rules
    from games.models import Game
    from games.services import commands

    rng = random.Random(seed)
    by_seat = {s.seat: s.user for s in game.seats.all()}
    while True:
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE:
            return game
        if until_version is not None and game.version >= until_version:
            return game
        state = game.rules_state()
        seat = state.turn
        command = rules.random_command(state, seat, rng)
        commands.do_command(game.pk, by_seat[seat], command, game.version, str(uuid.uuid4()))


def post(client, url, body=None, **extra):
    return client.post(url, data=json.dumps(body or {}), content_type="application/json", **extra)


def command_body(command, version, client_id=None):
    client_id = client_id or str(uuid.uuid4())
    return {"command": command, "expected_version": version, "client_id": client_id}


def play_to_the_end(clients: dict, game_id: int, seed: int = 0, max_commands: int = 2000):
    """Both players send random legal commands (never resigning) until the game ends.

    ``clients`` maps a name to a logged-in test client. Returns the final game JSON per name.
    """
    rng = random.Random(seed)
    url = f"/api/games/{game_id}/"
    for _ in range(max_commands):
        views = {}
        for name, client in clients.items():
            response = client.get(url)
            assert response.status_code == 200, response.content
            views[name] = response.json()
            assert_no_secrets(views[name])
        if all(v["view"]["status"] == "finished" for v in views.values()):
            return views
        actor = next(n for n, v in views.items() if v["view"]["turn"] == "me")
        game = views[actor]
        choices = [c for c in game["view"]["legal"] if c["type"] not in ("resign", "abort")]
        response = post(
            clients[actor], url + "commands/", command_body(rng.choice(choices), game["version"])
        )
        assert response.status_code == 200, response.content
        assert_no_secrets(response.json())
    raise AssertionError("the game did not end")


def on_turn(game, clients):
    """(name of the player on turn, their client, the other's name)."""
    game.refresh_from_db()
    name = game.to_move.username
    other = "bernd" if name == "anna" else "anna"
    return name, clients[name], other


def abort_as_before(game, seat: int | None = None):
    """End an active game by an abort, as games from before the rule that a dealt game
    cannot be called off could end (those games stay, aborted, with no result). The game
    becomes one without seeds, whose records the old rule still checks; ``seat`` aborts
    (the player on turn by default). Stored as the services store any ending."""
    from django.db import transaction
    from django.utils import timezone

    from games import rules
    from games.access import seating
    from games.models import Game
    from games.services import endings, game_log

    with transaction.atomic():
        game = Game.objects.select_for_update().get(pk=game.pk)
        state = game.rules_state()
        seat = state.turn if seat is None else seat
        events = rules.decide(state, seat, {"type": "abort"}, legacy_abort=True)
        for event in events:
            state = rules.evolve(state, event)
        game.fair_seed, game.fair_commitment, game.client_seeds = "", "", []
        players = seating(game).players
        game_log.append_events(game, events, seat=seat)
        change = game_log.store_state(game, state, players, timezone.now())
        game.save()  # every field: the seeds too
        if change.result_arrived:
            endings.rate(game, players)
    game.refresh_from_db()
    return game


def the_bots() -> None:
    """The computer opponents' accounts, as migrated: a transactional test before this one
    flushed the database, and the rows that accounts migrations 0010 and 0024 made went
    with it."""
    import importlib

    from django.apps import apps

    importlib.import_module("accounts.migrations.0010_bot_accounts").create_bots(apps, None)
    importlib.import_module("accounts.migrations.0024_admiral_bot").create_admiral(apps, None)
