"""The site's pages, and /fail/<game id>/, which fails while its variables hold the
game's secrets: its server seed and its deck order."""

from django.urls import path

from games.models import Game
from shanghaien.urls import handler429  # noqa: F401 (the site's handler)
from shanghaien.urls import urlpatterns as site


def fail(request, game_id):
    game = Game.objects.get(pk=game_id)
    seed, deck = game.fair_seed, game.state["deck"]
    if seed and deck:  # always: the secrets are in this frame when it raises
        raise RuntimeError(f"the page of game {game.pk} failed")


urlpatterns = [path("fail/<int:game_id>/", fail), *site]
