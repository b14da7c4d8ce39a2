"""Two commands on the same version at once: exactly one applies (PostgreSQL row locks)."""

import threading

import pytest
from django.db import connection

from games.models import Event
from games.services import commands
from shanghaien.lib.errors import Conflict, Illegal

pytestmark = pytest.mark.django_db(transaction=True)


def test_two_concurrent_commands_on_one_version_apply_exactly_once(postgres_only, game, players):
    game.refresh_from_db()
    actor = game.to_move
    version = game.version
    barrier = threading.Barrier(2)
    outcomes = []

    def send(client_id):
        try:
            barrier.wait()
            commands.do_command(game.pk, actor, {"type": "roll"}, version, client_id)
            outcomes.append("applied")
        except (Conflict, Illegal) as error:
            outcomes.append(error.code)
        finally:
            connection.close()

    threads = [threading.Thread(target=send, args=(f"t{i}",)) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert sorted(outcomes) == ["applied", "stale_version"]
    assert Event.objects.filter(game=game, kind="rolled").count() == 1
    game.refresh_from_db()
    assert game.version == version + 1
