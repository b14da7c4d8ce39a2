import pytest

from games.access import seating
from games.models import Event
from games.services import commands, game_log

from ..helpers.games import on_turn

pytestmark = pytest.mark.django_db


def test_events_cannot_be_changed_or_deleted(game):
    event = Event.objects.filter(game=game).first()
    event.payload = {"forged": True}
    with pytest.raises(TypeError):
        event.save()
    with pytest.raises(TypeError):
        event.delete()
    with pytest.raises(TypeError):
        Event.objects.filter(game=game).update(kind="x")
    with pytest.raises(TypeError):
        Event.objects.filter(game=game).delete()
    assert Event.objects.get(pk=event.pk).payload != {"forged": True}


def test_a_game_starts_with_its_secret_shuffle_and_first_player_in_the_log(game):
    started, dealt = Event.objects.filter(game=game).order_by("seq")
    assert started.kind == "game_started" and len(started.payload["deck"]) == 48
    assert dealt.kind == "round_started" and dealt.payload["tavern"] == started.payload["deck"][:6]
    assert game.to_move.pk == seating(game).players[started.payload["first_player"]].pk


def test_the_snapshot_equals_the_folded_log_after_commands(game, clients, players):
    name, _, _ = on_turn(game, clients)
    commands.do_command(game.pk, players[name], {"type": "roll"}, game.version, "c1")
    game.refresh_from_db()
    assert game_log.replay_events(game) == game.rules_state()
    assert list(Event.objects.filter(game=game).values_list("seq", flat=True)) == [1, 2, 3]
    assert Event.objects.get(game=game, seq=3).seat == seating(game).seat_of(players[name])


def test_resigning_finishes_the_game_for_the_other_player(game, players):
    commands.do_command(game.pk, players["bernd"], {"type": "resign"}, game.version, "r1")
    game.refresh_from_db()
    assert game.status == "finished" and game.winner == players["anna"]
    assert game.result_reason == "resignation" and game.to_move is None
