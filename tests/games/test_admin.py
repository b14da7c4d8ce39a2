import pytest

from games.models import Event

pytestmark = pytest.mark.django_db


def test_admin_shows_the_game_with_its_event_log_read_only(admin_client, game):
    page = admin_client.get(f"/admin/games/game/{game.pk}/change/")
    assert page.status_code == 200
    body = page.content.decode()
    assert "game_started" in body and "round_started" in body
    assert 'name="events-0-kind"' not in body  # read-only inline: no inputs
    for model in ("game", "event", "invitation", "command", "seat"):
        path = f"/admin/games/{model}/"
        assert admin_client.get(path).status_code == 200, path
    event = Event.objects.filter(game=game).first()
    assert admin_client.post(f"/admin/games/event/{event.pk}/delete/").status_code == 403
    assert admin_client.get("/admin/accounts/user/").status_code == 200
    assert admin_client.get("/admin/accounts/apitoken/").status_code == 200
